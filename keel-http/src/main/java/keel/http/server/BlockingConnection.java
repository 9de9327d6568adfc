package keel.http.server;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.net.LingeringDrain;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.codec.ParseResult;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
 */
final class BlockingConnection {
    private static final Log LOG = Log.of(BlockingConnection.class);

    private final long id;
    private final Socket socket;
    private final ServerContext context;
    private final Consumer<BlockingConnection> onClosed;
    private final Http1Parser parser;
    private final ByteBuffer in;
    private final WriteQueue out;
    private InputStream input;
    private OutputStream output;
    private long headDeadline;
    /** When the current wait between requests ends; empty lines do not restart it. */
    private long idleDeadline;
    /** While a write is blocked: when it counts as stalled (0 when not writing). Read by the write watchdog. */
    private volatile long writeDeadline;
    /** True while the thread waits for the first byte of the next request (read by a stopping server). */
    private volatile boolean waitingForRequest;

    BlockingConnection(long id, Socket socket, ServerContext context, Consumer<BlockingConnection> onClosed) {
        this.id = id;
        this.socket = socket;
        this.context = context;
        this.onClosed = onClosed;
        this.parser = new Http1Parser(context.parserLimits());
        this.in = ByteBuffer.allocate(context.readBufferSize());
        this.out = new WriteQueue(new BufferPool(context.readBufferSize(), 2));
    }

    /** Runs on the connection's own thread until the connection closes. */
    void serve() {
        try {
            socket.setTcpNoDelay(true);
            input = socket.getInputStream();
            output = new WatchedOutput(socket.getOutputStream());
            restartIdleDeadline();
            exchangeUntilClosed();
        } catch (IOException e) {
            LOG.debug("connection_failed", "id", id, "cause", e);
        } finally {
            closeQuietly();
            onClosed.accept(this);
        }
    }

    /** Answers at once and closes lingering (used when the server cannot take the connection). */
    void refuse(Response response) {
        try {
            input = socket.getInputStream();
            output = new WatchedOutput(socket.getOutputStream());
            respondAndClose(response);
        } catch (IOException e) {
            LOG.debug("refuse_failed", "id", id, "cause", e);
        } finally {
            closeQuietly();
            onClosed.accept(this);
        }
    }

    /** Closes the socket from another thread (server stop); the serving thread then ends. */
    void abort() {
        closeQuietly();
    }

    /**
     * For a stopping server: a connection waiting for its next request gets a FIN, so the client closes
     * and the serving thread's read ends; a busy one finishes its exchange (answered with close).
     */
    void closeIfIdle() {
        if (!waitingForRequest) return;
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            closeQuietly();
        }
    }

    /** For a stopping server, once the drain time is over: a connection still waiting for a request closes. */
    void abortIfIdle() {
        if (waitingForRequest) closeQuietly();
    }

    /** Called by the server's write watchdog: a write that made no progress for the idle timeout ends the connection. */
    void abortIfWriteStalled(long now) {
        long deadline = writeDeadline;
        if (deadline != 0 && now - deadline > 0) {
            LOG.debug("write_stalled", "id", id);
            closeQuietly();
        }
    }

    private void restartIdleDeadline() {
        idleDeadline = System.nanoTime() + Wait.IDLE.timeoutNanos(context.options().timeouts());
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
                    if (!exchange(parsed.request())) return;
                    restartIdleDeadline();
                }
            }
        }
    }

    /** Runs the handler here and writes its response; false when the connection must close. */
    private boolean exchange(Request request) throws IOException {
        Response response = context.dispatcher().respond(request);
        ResponsePlan plan = ResponsePlan.of(request, response, context.isStopping());
        if (plan.streamsBody()) {
            streamBody(response, plan);
        } else {
            plan.write(out, response);
            out.writeTo(output);
        }
        if (plan.close()) closeLingering();
        return !plan.close();
    }

    /** Reads more input under the timeout that applies now; false when the connection should end. */
    private boolean readMore() throws IOException {
        Wait wait = Wait.forReading(parser, in.position() > 0);
        boolean betweenRequests = wait == Wait.IDLE;
        var timeouts = context.options().timeouts();
        long timeoutNanos = switch (wait) {
            case IDLE -> idleDeadline - System.nanoTime();
            case HEAD -> {
                if (headDeadline == 0) headDeadline = System.nanoTime() + wait.timeoutNanos(timeouts);
                yield headDeadline - System.nanoTime();
            }
            default -> wait.timeoutNanos(timeouts); // a body: each read that made progress restarts it
        };
        if (!in.hasRemaining()) throw new IllegalStateException("read buffer full while the parser needs more");
        try {
            socket.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
            waitingForRequest = betweenRequests;
            if (betweenRequests && context.isStopping()) return false;
            int n;
            try {
                n = input.read(in.array(), in.arrayOffset() + in.position(), in.remaining());
            } finally {
                waitingForRequest = false;
            }
            if (n < 0) return false;
            context.observer().onBytesRead(n);
            in.position(in.position() + n);
            return true;
        } catch (SocketTimeoutException timeout) {
            if (betweenRequests) closeLingering();
            else respondAndClose(wait.onExpiry(timeouts));
            return false;
        }
    }

    private void respondAndClose(Response response) throws IOException {
        ResponsePlan.closing(response).write(out, response);
        out.writeTo(output);
        closeLingering();
    }

    /** Flush, shut down output, drain input briefly, close: the client always receives the last response. */
    private void closeLingering() throws IOException {
        output.flush();
        long drainTime = Wait.LINGER.timeoutNanos(context.options().timeouts());
        if (!LingeringDrain.shutdownAndDrain(socket, input, in.array(), drainTime)) LOG.debug("linger_cut_short", "id", id);
        closeQuietly();
    }

    /** Sends a streamed body chunk by chunk, pulling one item at a time. */
    private void streamBody(Response response, ResponsePlan plan) throws IOException {
        plan.write(out, response);
        out.writeTo(output);
        BlockingSubscriber subscriber = new BlockingSubscriber();
        response.stream().subscribe(subscriber);
        try {
            sendItems(subscriber, plan);
        } catch (IOException e) {
            subscriber.cancel();
            throw e;
        }
    }

    private void sendItems(BlockingSubscriber subscriber, ResponsePlan plan) throws IOException {
        while (true) {
            Object signal = subscriber.next();
            if (signal instanceof byte[] item) {
                plan.writeItem(out, item);
                out.writeTo(output);
                subscriber.request();
            } else if (signal instanceof Throwable failure) {
                LOG.warn("response_stream_failed", "id", id, "cause", failure);
                throw new IOException("response stream failed", failure); // a truncated body, never a false end
            } else {
                plan.writeEnd(out);
                out.writeTo(output);
                return;
            }
        }
    }

    private void closeQuietly() {
        try {
            socket.close();
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

        WatchedOutput(OutputStream socketOutput) {
            this.socketOutput = socketOutput;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            long idle = Wait.WRITE.timeoutNanos(context.options().timeouts());
            try {
                while (length > 0) {
                    int n = Math.min(length, SLICE);
                    writeDeadline = System.nanoTime() + idle;
                    socketOutput.write(bytes, offset, n);
                    context.observer().onBytesWritten(n);
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
    }

    /** Hands items to the connection thread one at a time; the queue holds at most one item and one end signal. */
    private static final class BlockingSubscriber implements Flow.Subscriber<byte[]> {
        private static final Object COMPLETE = new Object();
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

        Object next() throws IOException {
            try {
                return signals.take();
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
