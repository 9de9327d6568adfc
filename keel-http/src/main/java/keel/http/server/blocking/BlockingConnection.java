package keel.http.server.blocking;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.net.LingeringDrain;
import keel.core.tls.HandshakeFailures;
import keel.core.tls.Tls;
import keel.http.Request;
import keel.http.Response;
import keel.http.accesslog.AccessRecorder;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.codec.ParseResult;
import keel.http.execution.Dispatch;
import keel.http.execution.Dispatcher;
import keel.http.execution.Responses;
import keel.http.server.exchange.BodyRate;
import keel.http.server.exchange.ExchangeObserver;
import keel.http.server.exchange.ResponsePlan;
import keel.http.server.exchange.ServerContext;
import keel.http.server.exchange.Wait;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection of the blocking transport, served start to end by one thread: read, parse, run the
 * handler here, write, repeat. Timeouts are socket read timeouts, recomputed before each read so a
 * head that trickles in still has one deadline.
 *
 * <p>On a TLS port the thread first sniffs and shakes hands ({@link BlockingTls}); the exchanges then
 * run over the {@link javax.net.ssl.SSLSocket}, and a close sends {@code close_notify} before the
 * lingering close. Other threads (a stopping server, the watchdog) end a connection by closing the TCP
 * socket underneath, never through the TLS layer, which could wait for the serving thread's locks.
 */
final class BlockingConnection {
    private static final Log LOG = Log.of(BlockingConnection.class);

    private final long id;
    /** The accepted TCP socket. */
    private final Socket raw;
    /** What the exchanges read and write: {@link #raw}, or the TLS socket layered over it once the handshake is done. */
    private volatile Socket socket;
    private final ServerContext context;
    private final Consumer<BlockingConnection> onClosed;
    private final Http1Parser parser;
    private final BodyRate bodyRate;
    /** True once the current request's body has started to be waited for (its rate runs from then). */
    private boolean bodyStarted;
    private final ByteBuffer in;
    private final WriteQueue out;
    private InputStream input;
    private WatchedOutput output;
    /** The access log's view of the exchanges; null when the access log is off. */
    private final AccessRecorder access;
    private long headDeadline;
    /** When the current wait between requests ends; empty lines do not restart it. */
    private long idleDeadline;
    /** While a write is blocked: when it counts as stalled (0 when not writing). Read by the write watchdog. */
    private volatile long writeDeadline;
    /** While a TLS handshake runs: when it has taken too long (0 otherwise). Read by the watchdog. */
    private volatile long handshakeDeadline;
    /** True while the thread waits for the first byte of the next request (read by a stopping server). */
    private volatile boolean waitingForRequest;

    BlockingConnection(long id, Socket socket, ServerContext context, Consumer<BlockingConnection> onClosed) {
        this.id = id;
        this.raw = socket;
        this.socket = socket;
        this.context = context;
        this.onClosed = onClosed;
        this.parser = new Http1Parser(context.parserLimits(), (InetSocketAddress) socket.getRemoteSocketAddress(),
                (InetSocketAddress) socket.getLocalSocketAddress());
        this.bodyRate = new BodyRate(context.settings().timeouts());
        this.in = ByteBuffer.allocate(context.readBufferSize());
        this.out = new WriteQueue(new BufferPool(context.readBufferSize(), 2));
        this.access = AccessRecorder.blocking(context.accessLog());
    }

    /** Runs on the connection's own thread until the connection closes. */
    void serve() {
        try {
            raw.setTcpNoDelay(true);
            Tls tls = context.tls();
            if (tls != null && !startTls(tls)) return;
            input = socket.getInputStream();
            output = new WatchedOutput(socket.getOutputStream());
            restartIdleDeadline();
            exchangeUntilClosed();
        } catch (IOException e) {
            LOG.debug("connection_failed", "id", id, "cause", e);
        } catch (RuntimeException e) {
            // The dispatcher always answers: what throws here is a response the writer refuses.
            context.observer().onCut(ExchangeObserver.Cut.RESPONSE_FAILED);
            LOG.warn("response_failed", e, "id", id);
        } finally {
            closeQuietly();
            onClosed.accept(this);
        }
    }

    /**
     * Answers at once and closes lingering (used when the server cannot take the connection). On a TLS
     * port it only closes: a clear-text answer would be noise to a TLS client, and a handshake is the
     * work an overloaded server refuses.
     */
    void refuse(Response response) {
        try {
            input = socket.getInputStream();
            output = new WatchedOutput(socket.getOutputStream());
            if (context.tls() == null) respondAndClose(response);
            else closeLingering();
        } catch (IOException e) {
            LOG.debug("refuse_failed", "id", id, "cause", e);
        } finally {
            closeQuietly();
            onClosed.accept(this);
        }
    }

    /**
     * For a stopping server: a connection waiting for its next request gets a FIN, so the client closes
     * and the serving thread's read ends; a busy one finishes its exchange (answered with close).
     */
    void closeIfIdle() {
        if (!waitingForRequest) return;
        try {
            socket.shutdownOutput(); // over TLS: close_notify, then the FIN
        } catch (IOException e) {
            closeTcp();
        }
    }

    /** For a stopping server, once the drain time is over: a connection still waiting for a request closes. */
    void abortIfIdle() {
        if (waitingForRequest) closeTcp();
    }

    /**
     * Called by the server's watchdog: a write that made no progress for the write-stall timeout, or a
     * TLS handshake past its timeout, ends the connection.
     */
    void abortIfStalled(long now) {
        long deadline = writeDeadline;
        if (deadline != 0 && now - deadline > 0) {
            writeDeadline = 0; // counted once: the watchdog may pass again before the thread sees the close
            LOG.debug("write_stalled", "id", id);
            context.observer().onWriteStalled();
            closeTcp();
        }
        deadline = handshakeDeadline;
        if (deadline != 0 && now - deadline > 0) {
            LOG.debug("tls_handshake_stalled", "id", id);
            closeTcp();
        }
    }

    /**
     * Sniffs the first byte and shakes hands under the handshake timeout. True when the connection now
     * speaks TLS; false when it ends here: closed, refused (a clear-text client gets a clear-text 400)
     * or failed, each failure counted.
     */
    private boolean startTls(Tls tls) throws IOException {
        long deadline = System.nanoTime() + tls.handshakeTimeout().toNanos();
        handshakeDeadline = deadline;
        BlockingTls.Start start;
        try {
            // Until its first byte, a connection is idle: a stopping server may close it.
            waitingForRequest = true;
            if (context.isStopping()) return false;
            start = BlockingTls.start(raw, tls, deadline, () -> waitingForRequest = false,
                    () -> context.observer().onTlsHandshakeFailed(HandshakeFailures.RENEGOTIATION));
        } finally {
            waitingForRequest = false;
            handshakeDeadline = 0;
        }
        switch (start) {
            case BlockingTls.Start.Secured secured -> {
                socket = secured.socket();
                parser.peerCertificates(secured.peerCertificates());
                return true;
            }
            case BlockingTls.Start.PlainText plainText -> {
                context.observer().onTlsHandshakeFailed(HandshakeFailures.PLAIN_HTTP);
                input = raw.getInputStream();
                output = new WatchedOutput(raw.getOutputStream());
                respondAndClose(Responses.error(400, "this port speaks TLS: use https://"));
                return false;
            }
            case BlockingTls.Start.Closed closed -> {
                return false;
            }
            case BlockingTls.Start.Failed failed -> {
                context.observer().onTlsHandshakeFailed(failed.reason());
                LOG.debug("tls_handshake_failed", "id", id, "reason", failed.reason(), "cause", failed.cause());
                return false;
            }
        }
    }

    private void restartIdleDeadline() {
        idleDeadline = System.nanoTime() + Wait.IDLE.timeoutNanos(context.settings().timeouts());
    }

    private void exchangeUntilClosed() throws IOException {
        while (true) {
            in.flip();
            ParseResult result;
            try {
                result = parser.parse(in);
            } finally {
                in.compact();
            }
            switch (result) {
                case ParseResult.NeedMore needMore -> {
                    if (!readMore()) return;
                }
                case ParseResult.ContinueExpected c -> {
                    Http1Writer.writeContinue(out);
                    out.writeTo(output);
                }
                case ParseResult.Failed failed -> {
                    respondAndClose(Responses.error(failed.status(), failed.reason()));
                    return;
                }
                case ParseResult.Parsed parsed -> {
                    headDeadline = 0;
                    bodyStarted = false;
                    if (!exchange(parsed.request())) return;
                    restartIdleDeadline();
                }
            }
        }
    }

    /** Runs the handler here and writes its response; false when the connection must close. */
    private boolean exchange(Request request) throws IOException {
        if (access != null) access.begin(request);
        Response response = dispatch(request);
        ResponsePlan plan = ResponsePlan.of(request, response, context.isStopping());
        if (access != null) access.responding(response.status(), output.written());
        try {
            plan.write(out, response, AccessRecorder.requestIdOf(access), System.nanoTime());
            out.writeTo(output);
            if (plan.streamsBody()) streamBody(response, plan);
        } finally {
            if (access != null) access.finish(output.written()); // a failed write: what was sent
        }
        if (plan.close()) closeLingering();
        return !plan.close();
    }

    /** Routes the request and runs its handler here, on the connection's thread; times the answer for the observer. */
    private Response dispatch(Request request) {
        long start = context.observing() ? System.nanoTime() : 0;
        Dispatcher dispatcher = context.dispatcher();
        Dispatch.Routed routed = dispatcher.route(request);
        Response response = switch (routed) {
            case Dispatch.Answered answered -> answered.response();
            case Dispatch.Ready ready -> dispatcher.respond(ready);
        };
        if (context.observing()) context.answered(request.method(), routed.pattern(), response.status(), System.nanoTime() - start);
        return response;
    }

    /** Reads more input under the timeout that applies now; false when the connection should end. */
    private boolean readMore() throws IOException {
        Wait wait = Wait.forReading(parser, in.position() > 0);
        boolean betweenRequests = wait == Wait.IDLE;
        var timeouts = context.settings().timeouts();
        long timeoutNanos = switch (wait) {
            case IDLE -> idleDeadline - System.nanoTime();
            case HEAD -> {
                if (headDeadline == 0) headDeadline = System.nanoTime() + wait.timeoutNanos(timeouts);
                yield headDeadline - System.nanoTime();
            }
            default -> { // a body: each read that made progress restarts the stall timeout; the rate runs on
                long now = System.nanoTime();
                if (!bodyStarted) {
                    bodyStarted = true;
                    bodyRate.start(now);
                }
                yield bodyRate.nanosLeft(now, wait.timeoutNanos(timeouts));
            }
        };
        if (!in.hasRemaining()) throw new IllegalStateException("read buffer full while the parser needs more");
        try {
            // Rounded up: a read timeout never ends a wait before its deadline.
            socket.setSoTimeout((int) Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            waitingForRequest = betweenRequests;
            if (betweenRequests && context.isStopping()) return false;
            int n;
            try {
                n = input.read(in.array(), in.arrayOffset() + in.position(), in.remaining());
            } finally {
                waitingForRequest = false;
            }
            if (n < 0) return false;
            if (wait == Wait.BODY) bodyRate.onBytes(System.nanoTime(), n);
            context.observer().onBytesRead(n);
            in.position(in.position() + n);
            return true;
        } catch (SocketTimeoutException timeout) {
            Response answer = context.expired(wait, bodyRate, System.nanoTime());
            if (answer == null) closeLingering();
            else respondAndClose(answer);
            return false;
        }
    }

    private void respondAndClose(Response response) throws IOException {
        if (access != null) access.beginUnparsed(response.status(), output.written());
        ResponsePlan.closing(response).write(out, response, AccessRecorder.requestIdOf(access), System.nanoTime());
        try {
            out.writeTo(output);
        } finally {
            if (access != null) access.finish(output.written());
        }
        closeLingering();
    }

    /**
     * Flush, shut down output, drain input briefly, close: the client always receives the last response.
     * Over TLS the shutdown sends {@code close_notify} first, and the drain reads the TCP socket: what
     * the client sends after that is discarded anyway, so it is not decrypted. The TCP socket closes
     * first: {@code SSLSocket.close()} would otherwise read once more for that input, blocked up to the
     * read timeout the drain left (the whole drain time again when the client sent nothing).
     */
    private void closeLingering() throws IOException {
        output.flush();
        long drainTime = Wait.LINGER.timeoutNanos(context.settings().timeouts());
        if (!LingeringDrain.shutdownAndDrain(socket, raw, in.array(), drainTime)) LOG.debug("linger_cut_short", "id", id);
        closeTcp();
        closeQuietly();
    }

    /** Sends a streamed body, after its head, chunk by chunk, pulling one item at a time. */
    private void streamBody(Response response, ResponsePlan plan) throws IOException {
        BlockingSubscriber subscriber = new BlockingSubscriber();
        response.stream().subscribe(subscriber);
        long stall = Wait.STREAM.timeoutNanos(context.settings().timeouts());
        try {
            for (Object signal = subscriber.next(stall); signal != BlockingSubscriber.COMPLETE; signal = subscriber.next(stall)) {
                if (signal == BlockingSubscriber.STALLED) {
                    context.observer().onCut(ExchangeObserver.Cut.STREAM_STALLED);
                    LOG.warn("response_stream_stalled", "id", id, "timeout_ms", stall / 1_000_000);
                    throw new IOException("response stream stalled"); // a truncated body, never a false end
                } else if (signal instanceof Throwable failure) {
                    context.observer().onCut(ExchangeObserver.Cut.STREAM_FAILED);
                    LOG.warn("response_stream_failed", "id", id, "cause", failure);
                    throw new IOException("response stream failed", failure); // a truncated body, never a false end
                }
                plan.writeItem(out, (byte[]) signal);
                out.writeTo(output);
                subscriber.request();
            }
            plan.writeEnd(out);
            out.writeTo(output);
        } catch (IOException e) {
            subscriber.cancel();
            throw e;
        }
    }

    /** On the serving thread: closes the socket (over TLS, with {@code close_notify} if not sent yet). */
    private void closeQuietly() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "id", id, "cause", e);
        } finally {
            closeTcp(); // a TLS close that failed half-way still releases the socket
        }
    }

    /**
     * From any thread (a stopping server's too): closes the TCP socket; a TLS layer above it fails its
     * pending read or write, and the serving thread then ends.
     */
    void closeTcp() {
        try {
            raw.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "id", id, "cause", e);
        }
    }

    /**
     * Writes in slices and restarts the write deadline before each, so the watchdog ends a stalled
     * write (a client that stopped reading) but not a slow one that still makes progress.
     */
    private final class WatchedOutput extends OutputStream {
        private static final int SLICE = 64 * 1024;
        private final OutputStream socketOutput;
        private long written;

        WatchedOutput(OutputStream socketOutput) {
            this.socketOutput = socketOutput;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            long idle = Wait.WRITE.timeoutNanos(context.settings().timeouts());
            try {
                while (length > 0) {
                    int n = Math.min(length, SLICE);
                    writeDeadline = System.nanoTime() + idle;
                    socketOutput.write(bytes, offset, n);
                    context.observer().onBytesWritten(n);
                    written += n;
                    offset += n;
                    length -= n;
                }
            } finally {
                writeDeadline = 0;
            }
        }

        @Override
        public void flush() throws IOException {
            socketOutput.flush();
        }

        /** Bytes written so far (serving thread). */
        long written() {
            return written;
        }
    }

    /** Hands items to the connection thread one at a time; the queue holds at most one item and one end signal. */
    private static final class BlockingSubscriber implements Flow.Subscriber<byte[]> {
        static final Object COMPLETE = new Object();
        /** What {@link #next} returns when the publisher produced nothing within the stall timeout. */
        static final Object STALLED = new Object();
        private final BlockingQueue<Object> signals = new ArrayBlockingQueue<>(2);
        private volatile Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(byte[] item) {
            signals.offer(item);
        }

        @Override
        public void onError(Throwable failure) {
            signals.offer(failure);
        }

        @Override
        public void onComplete() {
            signals.offer(COMPLETE);
        }

        /** The next signal, or {@link #STALLED} after {@code stallNanos} without one (0: wait as long as it takes). */
        Object next(long stallNanos) throws IOException {
            try {
                if (stallNanos == 0) return signals.take();
                Object signal = signals.poll(stallNanos, TimeUnit.NANOSECONDS);
                return signal != null ? signal : STALLED;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                subscription.cancel();
                throw new IOException("interrupted while streaming a response", e);
            }
        }

        void request() {
            subscription.request(1);
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) s.cancel();
        }
    }
}
