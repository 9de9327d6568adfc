package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.Timer;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;

/**
 * The connections to one host ({@code host:port}) on one event loop, confined to that loop: idle
 * connections, requests waiting for one, and the count of open ones. Bounded on every side: at most
 * {@code max-connections} open, at most {@code max-pending-acquires} waiting (one more fails at once),
 * each waiting at most {@code acquire-timeout}. A background timer closes connections idle longer
 * than {@code max-idle-time} or older than {@code max-life-time}. Each entry point ends by telling
 * the client's {@link ClientObserver.Host} how its counts moved ({@link #report}).
 */
final class HostPool {
    private static final Log LOG = Log.of(HostPool.class);

    /** A request waiting for a connection, with the timer that ends its wait. */
    private record Waiter(Call.Attempt attempt, Timer timer) {
    }

    private final LoopPools home;
    private final boolean secure;
    private final String host;
    private final int port;
    private final String name;
    private final ClientOptions.Pool limits;
    private final ClientObserver.Host observer;
    private final ArrayDeque<ClientConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private int open;
    /** The counts the observer last heard: what it has not heard yet is the difference. */
    private int reportedOpen;
    private int reportedIdle;
    private int reportedWaiting;
    private Timer eviction;
    private boolean closed;

    HostPool(LoopPools home, boolean secure, String host, int port) {
        this.home = home;
        this.secure = secure;
        this.host = host;
        this.port = port;
        this.name = name(host, port);
        this.limits = home.options().pool();
        this.observer = home.options().observer().host(name);
    }

    /** Gives {@code attempt} a connection now, opens one for it, queues it, or fails it at once. */
    void acquire(Call.Attempt attempt) {
        take(attempt);
        report();
    }

    private void take(Call.Attempt attempt) {
        if (closed) {
            attempt.onAcquireFailed(new HttpClientException("client closed"));
            return;
        }
        long now = loop().nanoTime();
        ClientConnection connection;
        while ((connection = takeIdle()) != null) {
            if (connection.isReusable(now)) {
                attempt.onConnection(connection, connection.hasCarriedRequests());
                return;
            }
            connection.close();
        }
        if (open < limits.maxConnections()) {
            openFor(attempt);
        } else if (waiting.size() >= limits.maxPendingAcquires()) {
            attempt.onAcquireFailed(new PoolFullException(name, limits.maxConnections(), limits.maxPendingAcquires()));
        } else {
            Timer timer = loop().schedule(limits.acquireTimeout().toNanos(), TimeUnit.NANOSECONDS, () -> {
                waiting.removeIf(waiter -> waiter.attempt() == attempt);
                report();
                attempt.onAcquireFailed(new ClientTimeoutException(ClientTimeoutException.Kind.ACQUIRE, limits.acquireTimeout(), name));
            });
            waiting.addLast(new Waiter(attempt, timer));
        }
    }

    /** An attempt that ended while it waited (its request timed out): it leaves the queue. */
    void cancel(Call.Attempt attempt) {
        waiting.removeIf(waiter -> {
            if (waiter.attempt() == attempt) waiter.timer().cancel();
            return waiter.attempt() == attempt;
        });
        report();
    }

    private void openFor(Call.Attempt attempt) {
        open++;
        home.resolver().resolve(host, loop(), (address, failure) -> {
            if (failure != null) {
                open--;
                attempt.onConnectFailed(new HttpClientException("cannot resolve " + host + ": " + failure.getMessage(), failure));
                serveWaiters();
                report();
                return;
            }
            try {
                SSLEngine engine = secure ? home.tls().newClientEngine(host, port) : null;
                new ClientConnection(this, home.parserLimits())
                        .connect(new InetSocketAddress(address, port), home.channelSettings(), engine, attempt);
            } catch (java.io.UncheckedIOException e) {
                open--;
                attempt.onConnectFailed(new HttpClientException("cannot open a socket to " + name, e));
                serveWaiters();
            }
            report();
        });
    }

    /** A new connection is ready: it serves the attempt it was opened for, or the next waiter, or goes idle. */
    void onConnected(ClientConnection connection, Call.Attempt openedFor) {
        if (openedFor != null && !openedFor.isDone()) openedFor.onConnection(connection, false);
        else release(connection);
    }

    /** A connection whose exchange ended with keep-alive: to the next waiter, else idle. */
    void release(ClientConnection connection) {
        keep(connection);
        report();
    }

    private void keep(ClientConnection connection) {
        long now = loop().nanoTime();
        if (closed || connection.isExpired(now)) {
            connection.close();
            return;
        }
        Waiter waiter;
        while ((waiter = waiting.pollFirst()) != null) {
            waiter.timer().cancel();
            if (!waiter.attempt().isDone()) {
                waiter.attempt().onConnection(connection, connection.hasCarriedRequests());
                return;
            }
        }
        idle.addLast(connection);
        scheduleEviction();
    }

    /** A connection closed (by either side, or refused while connecting): its slot may serve a waiter. */
    void onClosed(ClientConnection connection, boolean wasConnecting) {
        open--;
        idle.remove(connection);
        LOG.debug("client_connection_closed", "host", name, "open", open, "connecting", wasConnecting);
        serveWaiters();
        report();
        if (open == 0 && waiting.isEmpty()) home.remove(this); // a host called once does not stay forever
    }

    private void serveWaiters() {
        while (!closed && open < limits.maxConnections() && !waiting.isEmpty()) {
            Waiter waiter = waiting.pollFirst();
            waiter.timer().cancel();
            if (!waiter.attempt().isDone()) openFor(waiter.attempt());
        }
    }

    private ClientConnection takeIdle() {
        return limits.order() == ClientOptions.Order.LIFO ? idle.pollLast() : idle.pollFirst();
    }

    private void scheduleEviction() {
        if (eviction != null || idle.isEmpty()) return;
        eviction = loop().schedule(limits.evictionInterval().toNanos(), TimeUnit.NANOSECONDS, this::evict);
    }

    /** Closes idle connections past their idle or life time; runs while any connection is idle. */
    private void evict() {
        eviction = null;
        long now = loop().nanoTime();
        long maxIdle = limits.maxIdleTime().toNanos();
        for (ClientConnection connection : idle.toArray(ClientConnection[]::new)) {
            if (connection.isIdleLongerThan(maxIdle, now) || connection.isExpired(now)) connection.close();
        }
        scheduleEviction();
        report();
    }

    /** Fails the waiters and closes idle connections; busy ones close when their exchange ends. */
    void close() {
        closed = true;
        Waiter waiter;
        while ((waiter = waiting.pollFirst()) != null) {
            waiter.timer().cancel();
            waiter.attempt().onAcquireFailed(new HttpClientException("client closed"));
        }
        for (ClientConnection connection : idle.toArray(ClientConnection[]::new)) connection.close();
        if (eviction != null) eviction.cancel();
        report();
    }

    /** Tells the observer how open, idle and waiting moved since it last heard; nothing when none moved. */
    private void report() {
        int openDelta = open - reportedOpen;
        int idleDelta = idle.size() - reportedIdle;
        int waitingDelta = waiting.size() - reportedWaiting;
        if (openDelta == 0 && idleDelta == 0 && waitingDelta == 0) return;
        reportedOpen = open;
        reportedIdle = idle.size();
        reportedWaiting = waiting.size();
        try {
            observer.onPoolChanged(openDelta, idleDelta, waitingDelta);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "pool_changed"); // metrics must never cost a call
        }
    }

    boolean isClosed() {
        return closed;
    }

    int openConnections() {
        return open;
    }

    int idleConnections() {
        return idle.size();
    }

    String name() {
        return name;
    }

    ClientObserver.Host observer() {
        return observer;
    }

    static String name(String host, int port) {
        return host + ":" + port;
    }

    /** What tells this pool from the others of its loop: scheme, host and port. */
    String key() {
        return key(secure, host, port);
    }

    static String key(boolean secure, String host, int port) {
        return (secure ? "https://" : "http://") + name(host, port);
    }

    EventLoop loop() {
        return home.loop();
    }

    ClientOptions options() {
        return home.options();
    }
}
