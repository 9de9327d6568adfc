package keel.http.client;

import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.IoHandler;
import keel.core.loop.Timer;
import keel.http.codec.Http1ResponseParser;
import keel.http.codec.ResponseEvent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * One TCP connection to a host, owned by one event loop for life (every method runs on that loop).
 *
 * <pre>
 *   CONNECTING ──connected──► IDLE ──exchange──► BUSY ──response ended, keep-alive, nothing left over──┐
 *       │                      ▲                   │                                                   │
 *       │                      └───────────────────┼───────────────── back to the pool ◄───────────────┘
 *       │                                          │ failure, timeout, no keep-alive, bytes left over
 *       └──refused, timeout────────────────────────┴──────────────────────────────────────────► CLOSED
 * </pre>
 *
 * While idle it keeps reading: a server that closes an idle connection (its keep-alive timeout) is
 * seen at once and the connection leaves the pool; {@link #isReusable} checks once more on acquire.
 */
final class ClientConnection implements IoHandler {
    private static final Log LOG = Log.of(ClientConnection.class);

    private enum State { CONNECTING, IDLE, BUSY, CLOSED }

    private final HostPool pool;
    private final EventLoop loop;
    private final SocketChannel channel;
    private final Http1ResponseParser parser;
    private final WriteQueue out;
    private final long createdAt;
    private SelectionKey key;
    private ByteBuffer in;
    private State state = State.CONNECTING;
    private Timer connectTimer;
    private Call.Attempt exchange;
    private int exchanges;
    private long idleSince;
    private int interest;
    /** True while a streamed body's subscriber wants no more bytes: reading pauses. */
    private boolean readPaused;

    ClientConnection(HostPool pool) throws IOException {
        this.pool = pool;
        this.loop = pool.loop();
        this.channel = SocketChannel.open();
        this.parser = new Http1ResponseParser(pool.parserLimits());
        this.out = new WriteQueue(pool.buffers());
        this.createdAt = loop.nanoTime();
    }

    /** The one place the state changes; each state has the predecessors the diagram allows. */
    private void moveTo(State next) {
        assert switch (next) {
            case CONNECTING -> false;
            case IDLE -> state == State.CONNECTING || state == State.BUSY;
            case BUSY -> state == State.IDLE;
            case CLOSED -> true;
        } : state + " -> " + next;
        state = next;
    }

    /** Starts connecting; {@code attempt} gets the connection, or the failure. */
    void connect(InetSocketAddress address, Call.Attempt attempt) {
        exchange = attempt;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            key = loop.register(channel, 0, this);
            var timeout = pool.options().connectTimeout();
            connectTimer = loop.schedule(timeout.toNanos(), TimeUnit.NANOSECONDS,
                    () -> fail(new ClientTimeoutException(ClientTimeoutException.Kind.CONNECT, timeout, pool.name())));
            if (channel.connect(address)) onConnected();
            else setInterest(SelectionKey.OP_CONNECT);
        } catch (IOException | RuntimeException e) {
            fail(connectFailure(e));
        }
    }

    private void finishConnect() {
        try {
            if (!channel.finishConnect()) return;
        } catch (IOException e) {
            fail(connectFailure(e));
            return;
        }
        onConnected();
    }

    private ConnectionFailedException connectFailure(Exception cause) {
        return new ConnectionFailedException("cannot connect to " + pool.name() + ": " + cause.getMessage(), cause);
    }

    private void onConnected() {
        connectTimer.cancel();
        Call.Attempt attempt = exchange;
        exchange = null;
        moveTo(State.IDLE);
        idleSince = loop.nanoTime();
        setInterest(SelectionKey.OP_READ);
        pool.onConnected(this, attempt);
    }

    /** Sends {@code attempt}'s request on this idle connection. */
    void exchange(Call.Attempt attempt) {
        moveTo(State.BUSY);
        exchange = attempt;
        exchanges++;
        parser.expect(attempt.isHead());
        try {
            RequestEncoder.encode(attempt.request(), out);
            flush();
        } catch (IOException | RuntimeException e) {
            fail(e);
            return;
        }
        updateInterest();
    }

    // ---- events ----------------------------------------------------------------------------------

    @Override
    public void onReady(SelectionKey readyKey, int ready) {
        try {
            if ((ready & SelectionKey.OP_CONNECT) != 0) {
                finishConnect();
                return;
            }
            if ((ready & SelectionKey.OP_WRITE) != 0) flush();
            if ((ready & SelectionKey.OP_READ) != 0) onReadable();
            updateInterest();
        } catch (IOException | RuntimeException e) {
            fail(e);
        }
    }

    @Override
    public void onClosedByLoop() {
        fail(new HttpClientException("event loop " + loop.name() + " stopped"));
    }

    private void onReadable() throws IOException {
        if (in == null) in = pool.buffers().acquire();
        int n = channel.read(in);
        if (n < 0) {
            onEndOfInput();
            return;
        }
        if (state != State.BUSY) {
            // A server must not answer what was not asked: the connection can no longer be trusted.
            LOG.debug("unexpected_bytes", "host", pool.name(), "bytes", n);
            close();
            return;
        }
        parseBuffered();
    }

    /** Parses what the read buffer holds, then keeps what is left for the next read (or frees the buffer). */
    private void parseBuffered() {
        in.flip();
        try {
            processInput();
        } finally {
            if (in != null) {
                in.compact();
                if (in.position() == 0) releaseInput();
            }
        }
    }

    /** Hands parsed events to the exchange until the buffer is used up, the response ends, or reading pauses. */
    private void processInput() {
        while (state == State.BUSY && !readPaused) {
            ResponseEvent event = parser.parse(in);
            switch (event) {
                case ResponseEvent.NeedMore needMore -> {
                    return;
                }
                case ResponseEvent.Head head -> exchange.onHead(head, this);
                case ResponseEvent.Body body -> exchange.onBody(body.bytes());
                case ResponseEvent.End end -> onEnd();
                case ResponseEvent.Failed failed -> fail(new HttpClientException("invalid response from " + pool.name() + ": " + failed.reason()));
            }
        }
    }

    /**
     * The response is complete. The connection goes back to the pool first, so a follow-up call can
     * reuse it, but only if nothing is left over: bytes after the response would be read as the next
     * call's answer, and request bytes still unsent would delay it.
     */
    private void onEnd() {
        Call.Attempt attempt = exchange;
        exchange = null;
        boolean clean = (in == null || !in.hasRemaining()) && out.isEmpty();
        if (attempt.keepAlive() && clean && !pool.isClosed()) {
            moveTo(State.IDLE);
            idleSince = loop.nanoTime();
            pool.release(this);
        } else {
            close();
        }
        attempt.onEnd();
    }

    private void onEndOfInput() {
        if (state != State.BUSY) {
            close();
            return;
        }
        ResponseEvent event = parser.endOfInput();
        if (event instanceof ResponseEvent.End) {
            Call.Attempt attempt = exchange;
            exchange = null;
            close();
            attempt.onEnd();
            return;
        }
        String reason = event instanceof ResponseEvent.Failed failed ? failed.reason() : "connection closed";
        fail(new ConnectionFailedException(reason + " (" + pool.name() + ")", null));
    }

    // ---- flow control for streamed bodies ---------------------------------------------------------

    /** The subscriber of a streamed body has no demand: stop reading (the peer slows down by TCP flow control). */
    void pauseReading() {
        readPaused = true;
        updateInterest();
    }

    /** Demand is back: parse what is buffered, then read again. */
    void resumeReading() {
        if (!readPaused || state != State.BUSY) return;
        readPaused = false;
        if (in != null) parseBuffered();
        updateInterest();
    }

    // ---- pool checks -----------------------------------------------------------------------------

    /**
     * An idle connection is reused only if it is young enough and the server has not closed it: a
     * non-blocking read sees the FIN (or stray bytes) that select may not have reported yet.
     */
    boolean isReusable(long now) {
        if (state != State.IDLE || !channel.isOpen() || isExpired(now)) return false;
        if (now - idleSince >= pool.options().pool().maxIdleTime().toNanos()) return false;
        ByteBuffer probe = pool.buffers().acquire();
        try {
            return channel.read(probe) == 0;
        } catch (IOException e) {
            return false;
        } finally {
            pool.buffers().release(probe);
        }
    }

    boolean isExpired(long now) {
        long maxLife = pool.options().pool().maxLifeTime().toNanos();
        return maxLife > 0 && now - createdAt >= maxLife;
    }

    boolean isIdleLongerThan(long nanos, long now) {
        return state == State.IDLE && now - idleSince >= nanos;
    }

    /** True once the connection carried a request: only then can the server have closed it under a new one. */
    boolean hasCarriedRequests() {
        return exchanges > 0;
    }

    // ---- writing and closing ---------------------------------------------------------------------

    private void flush() throws IOException {
        if (!out.isEmpty()) out.writeTo(channel);
        if (out.isEmpty() && exchange != null) exchange.onRequestWritten();
    }

    /** Fails the exchange in progress (if any) and closes. */
    void fail(Throwable failure) {
        Call.Attempt attempt = exchange;
        boolean beforeResponse = parser.isBeforeResponse();
        exchange = null;
        close();
        if (attempt == null) return;
        Throwable reported = failure instanceof IOException && !(failure instanceof HttpClientException)
                ? new ConnectionFailedException(failure.getMessage() + " (" + pool.name() + ")", failure) : failure;
        attempt.onFailed(reported, beforeResponse);
    }

    /** Closes at once: a client connection has nothing to drain (a response in progress is abandoned). */
    void close() {
        if (state == State.CLOSED) return;
        boolean wasConnecting = state == State.CONNECTING;
        moveTo(State.CLOSED);
        if (connectTimer != null) connectTimer.cancel();
        if (key != null) key.cancel();
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "host", pool.name(), "cause", e);
        }
        out.clear();
        releaseInput();
        pool.onClosed(this, wasConnecting);
    }

    /** For a task that could not reach the loop (it stopped): the socket closes, the loop's shutdown does the rest. */
    void closeFromAnyThread() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "host", pool.name(), "cause", e);
        }
    }

    private void releaseInput() {
        if (in == null) return;
        pool.buffers().release(in);
        in = null;
    }

    private void updateInterest() {
        if (state == State.CLOSED || state == State.CONNECTING) return;
        int wanted = readPaused ? 0 : SelectionKey.OP_READ;
        if (!out.isEmpty()) wanted |= SelectionKey.OP_WRITE;
        setInterest(wanted);
    }

    private void setInterest(int wanted) {
        if (wanted != interest && key.isValid()) {
            key.interestOps(wanted);
            interest = wanted;
        }
    }

    EventLoop loop() {
        return loop;
    }

    @Override
    public String toString() {
        return "client connection to " + pool.name() + " (" + state + ")";
    }
}
