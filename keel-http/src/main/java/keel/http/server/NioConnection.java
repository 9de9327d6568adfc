package keel.http.server;

import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.IoHandler;
import keel.core.net.LingeringDrain;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.codec.ParseResult;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * One HTTP/1.1 connection on the nio transport, owned by one event loop for life (every method runs on
 * that loop's thread, except {@link #onResponseFromAnyThread}, which hops onto it).
 *
 * <pre>
 *            ┌──────────── keep-alive: next (pipelined) request ───────────┐
 *            ▼                                                             │
 *   ──► READING ──request──► HANDLING ──fixed response──────────────────────┤
 *         │   ▲                  │                                         │
 *         │   └─ 100-continue    └──streamed response──► STREAMING ──end───┘
 *         │ bad input, timeout,           │ (close requested)
 *         │ connection limit              ▼
 *         └──────error response────────► CLOSING ──flushed──► LINGERING ──EOF/timeout──► CLOSED
 *
 *   HANDLING ──a WebSocket route accepted the handshake: 101──► UPGRADED ──its WsConnection closed──► CLOSED
 * </pre>
 *
 * After a 101 the socket's key, write queue and unread input belong to a {@link WsConnection}; this
 * object stays in its loop's set only to be counted, stopped ({@code 1001}) and closed with the others.
 *
 * Responses leave in request order because a connection handles one request at a time: pipelined
 * requests wait in the read buffer. Reading stops while a handler runs and while more than the high
 * water mark of output waits, so a client that does not read cannot grow server memory.
 */
final class NioConnection implements IoHandler, Dispatcher.Upgradable {
    private static final Log LOG = Log.of(NioConnection.class);

    private enum State { READING, HANDLING, STREAMING, CLOSING, LINGERING, UPGRADED, CLOSED }

    private final long id;
    private final SocketChannel channel;
    private final LoopConnections home;
    private final EventLoop loop;
    private final Http1Parser parser;
    private final WriteQueue out;
    /** Created once: a method reference made per request would allocate on every request. */
    private final Consumer<Response> onResponse = this::onResponseFromAnyThread;
    private SelectionKey key;
    private ByteBuffer in;
    private State state = State.READING;
    private Wait wait = Wait.NONE;
    private long deadline;
    private int interest;
    private boolean writable = true;
    private boolean processing;
    private Request current;
    private ResponseStream stream;
    private LingeringDrain lingering;
    /** After a 101: the WebSocket that owns the socket now, and its start while the parser unwinds. */
    private WsConnection webSocket;
    private Runnable startWebSocket;
    private Runnable releaseUpgrade;

    NioConnection(long id, SocketChannel channel, LoopConnections home) {
        this.id = id;
        this.channel = channel;
        this.home = home;
        this.loop = home.loop();
        this.parser = new Http1Parser(home.context().parserLimits());
        this.out = new WriteQueue(home.buffers());
    }

    /** Registers the connection on its loop and starts reading; loop thread. */
    void open() throws IOException {
        key = loop.register(channel, SelectionKey.OP_READ, this);
        interest = SelectionKey.OP_READ;
        waitFor(Wait.IDLE, false);
    }

    /** Answers at once and closes (used past the connection limit); loop thread. */
    void refuse(Response response) {
        respondAndClose(response);
    }

    // ---- events ----------------------------------------------------------------------------------

    @Override
    public void onReady(SelectionKey readyKey, int ready) {
        try {
            if ((ready & SelectionKey.OP_WRITE) != 0) onWritable();
            if (state != State.CLOSED && (ready & SelectionKey.OP_READ) != 0) onReadable();
        } catch (IOException | RuntimeException e) {
            LOG.debug("connection_failed", "id", id, "state", state, "cause", e);
            close();
        }
    }

    @Override
    public void onClosedByLoop() {
        close();
    }

    private void onReadable() throws IOException {
        if (state == State.LINGERING) {
            drain();
            return;
        }
        if (state != State.READING) return;
        if (in == null) in = home.buffers().acquire();
        int n = channel.read(in);
        if (n < 0) {
            onEndOfInput();
        } else if (n > 0) {
            home.context().observer().onBytesRead(n);
            if (wait == Wait.BODY) waitFor(Wait.BODY, true);
            processInput();
        }
    }

    private void onWritable() throws IOException {
        flush();
        if (!writable) {
            updateInterest();
            return;
        }
        if (state == State.READING) {
            processInput();
            return;
        }
        if (state == State.STREAMING) stream.resume();
        updateWaitAndInterest();
    }

    /** The client closed its side: finish what is being written, then close. */
    private void onEndOfInput() throws IOException {
        if (out.isEmpty()) {
            close();
        } else {
            state = State.CLOSING;
            flush();
            updateInterest();
        }
    }

    /** Called by the sweep timer of the loop with the loop's current time. */
    void checkTimeout(long now) {
        if (!channel.isOpen()) {
            close(); // closed from another thread when its response could not reach this loop
            return;
        }
        if (wait == Wait.NONE || now - deadline < 0) return;
        switch (wait) {
            case HEAD, BODY -> respondAndClose(wait.onExpiry(home.context().options().timeouts()));
            case IDLE -> closeLingering();
            case WRITE, LINGER -> close();
            case NONE -> { }
        }
    }

    // ---- the request path ------------------------------------------------------------------------

    /** Parses buffered input into requests while the connection reads and can write; then flushes. */
    private void processInput() {
        if (processing) return;
        processing = true;
        try {
            boolean needMore;
            do {
                needMore = in == null || parseBuffered();
                flush();
            } while (!needMore && state == State.READING && writable);
        } catch (IOException e) {
            LOG.debug("write_failed", "id", id, "cause", e);
            close();
            return;
        } finally {
            processing = false;
        }
        if (startWebSocket != null) {
            Runnable start = startWebSocket;
            startWebSocket = null;
            start.run();
            return;
        }
        updateWaitAndInterest();
    }

    /** Parses buffered requests; true when it stopped because the buffer holds no complete message. */
    private boolean parseBuffered() {
        in.flip();
        try {
            while (state == State.READING && writable) {
                ParseResult result = parser.parse(in);
                if (result instanceof ParseResult.NeedMore) return true;
                switch (result) {
                    case ParseResult.ContinueExpected c -> Http1Writer.writeContinue(out);
                    case ParseResult.Failed failed -> respondAndClose(Responses.error(failed.status(), failed.reason()));
                    case ParseResult.Parsed parsed -> onRequest(parsed.request());
                    case ParseResult.NeedMore needMore -> { }
                }
            }
            return false;
        } finally {
            if (in != null) {
                in.compact();
                if (in.position() == 0) releaseInput();
            }
        }
    }

    private void onRequest(Request request) {
        current = request;
        state = State.HANDLING;
        // The next wait (idle, or the next pipelined head) starts its own deadline when this exchange ends.
        waitFor(Wait.NONE, false);
        home.context().dispatcher().dispatch(request, onResponse, loop, this);
    }

    /** The dispatcher's callback: moves the response onto this connection's loop. */
    private void onResponseFromAnyThread(Response response) {
        if (loop.inEventLoop()) {
            onResponseOrClose(response);
            return;
        }
        try {
            loop.execute(() -> onResponseOrClose(response));
        } catch (RejectedExecutionException e) {
            LOG.warn("response_dropped", "id", id, "cause", e.getMessage());
            closeChannelQuietly();
        }
    }

    /** A response that cannot be written (a bad value, a publisher that throws) ends the connection, never strands it. */
    private void onResponseOrClose(Response response) {
        try {
            onResponse(response);
        } catch (RuntimeException e) {
            LOG.warn("response_failed", e, "id", id);
            close();
        }
    }

    private void onResponse(Response response) {
        if (state != State.HANDLING) {
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream()); // closed while the handler ran
            return;
        }
        ResponsePlan plan = ResponsePlan.of(current, response, home.context().isStopping());
        current = null;
        if (plan.streamsBody()) {
            stream = new ResponseStream(this, response, plan);
            state = State.STREAMING;
            stream.start();
        } else {
            plan.write(out, response);
            finishExchange(plan.close());
        }
    }

    /**
     * A WebSocket route accepted the handshake (called inside {@code dispatch}, so inside the parse
     * loop): queue the 101 now; the WebSocket takes the socket, the write queue and the input read
     * past the request once the parse loop has stopped.
     */
    @Override
    public void upgrade(WsHandshake.Accepted accepted, WsConnection.Binding binding, Runnable release) {
        WsHandshake.writeSwitchingProtocols(out, accepted);
        current = null;
        state = State.UPGRADED;
        releaseUpgrade = release;
        startWebSocket = () -> {
            ByteBuffer leftover = in;
            in = null;
            var transport = new WsConnection.Transport(channel, key, loop, home.buffers(), out, leftover);
            webSocket = WsConnection.start(id, null, binding, home.context().webSocketSettings(), transport, this::onWebSocketClosed);
        };
    }

    private void onWebSocketClosed() {
        releaseUpgrade();
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        home.remove(this);
    }

    /** Gives back what the upgrade held (a route's session permit), once. */
    private void releaseUpgrade() {
        Runnable release = releaseUpgrade;
        releaseUpgrade = null;
        if (release != null) release.run();
    }

    /** After a response is fully queued: read the next request, or close once the bytes are out. */
    void finishExchange(boolean close) {
        stream = null;
        state = close ? State.CLOSING : State.READING;
        if (!processing) processInput();
    }

    private void respondAndClose(Response response) {
        ResponsePlan.closing(response).write(out, response);
        current = null;
        state = State.CLOSING;
        if (!processing) processInput();
    }

    // ---- writing ---------------------------------------------------------------------------------

    /** Writes what the socket takes; tracks writability with hysteresis between the water marks. */
    void flush() throws IOException {
        if (!out.isEmpty()) {
            long before = out.pendingBytes();
            out.writeTo(channel);
            long written = before - out.pendingBytes();
            if (written > 0) {
                home.context().observer().onBytesWritten(written);
                if (wait == Wait.WRITE) waitFor(Wait.WRITE, true);
            }
        }
        long pending = out.pendingBytes();
        if (writable && pending >= home.context().options().waterMarks().high()) writable = false;
        else if (!writable && pending <= home.context().options().waterMarks().low()) writable = true;
        if (pending == 0 && state == State.CLOSING) closeLingering();
    }

    WriteQueue out() {
        return out;
    }

    boolean isWritable() {
        return writable;
    }

    EventLoop loop() {
        return loop;
    }

    /** Called by a stream after it queued bytes; flushes and updates interest. */
    void afterStreamWrite() {
        try {
            flush();
        } catch (IOException e) {
            LOG.debug("write_failed", "id", id, "cause", e);
            close();
            return;
        }
        updateWaitAndInterest();
    }

    // ---- closing ---------------------------------------------------------------------------------

    /**
     * Lingering close: shut down output (the client gets a FIN after the last response byte), then read
     * and drop input until the client closes or the drain time or byte bound runs out. Closing with
     * unread input would send a RST that can destroy the response in the client's receive buffer.
     */
    private void closeLingering() {
        if (state == State.LINGERING || state == State.CLOSED) return;
        state = State.LINGERING;
        out.clear();
        releaseInput();
        try {
            lingering = LingeringDrain.start(channel);
        } catch (IOException e) {
            close();
            return;
        }
        waitFor(Wait.LINGER, true);
        updateInterest();
    }

    private void drain() throws IOException {
        if (lingering.drain(channel, home.buffers())) close();
    }

    /** For a stopping server: a connection between requests closes now; a busy one finishes its exchange first. */
    void closeIfIdle() {
        if (state == State.UPGRADED && webSocket != null) webSocket.goAway();
        if (state == State.READING && in == null && parser.isBetweenRequests() && out.isEmpty()) closeLingering();
    }

    void close() {
        if (state == State.CLOSED) return;
        if (state == State.UPGRADED && webSocket != null) {
            webSocket.abort(); // its close callback removes this connection
            return;
        }
        state = State.CLOSED;
        wait = Wait.NONE;
        releaseUpgrade(); // closed between the 101 and the WebSocket's start
        if (stream != null) {
            try {
                stream.cancel();
            } catch (RuntimeException e) {
                LOG.warn("stream_cancel_failed", e, "id", id);
            }
        }
        if (key != null) key.cancel();
        closeChannelQuietly();
        out.clear();
        releaseInput();
        home.remove(this);
    }

    /** The only thing other threads may do to a connection: close its socket; the loop's sweep finishes the job. */
    void closeChannelFromAnyThread() {
        closeChannelQuietly();
    }

    private void closeChannelQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "id", id, "cause", e);
        }
    }

    private void releaseInput() {
        if (in == null) return;
        home.buffers().release(in);
        in = null;
    }

    // ---- interest and timeouts -------------------------------------------------------------------

    private void updateWaitAndInterest() {
        if (state == State.CLOSED) return;
        if (state == State.LINGERING) {
            updateInterest();
            return;
        }
        if (!out.isEmpty()) waitFor(Wait.WRITE, false);
        else if (state != State.READING) waitFor(Wait.NONE, false);
        else waitFor(Wait.forReading(parser, in != null), false);
        updateInterest();
    }

    private void updateInterest() {
        if (state == State.CLOSED || !key.isValid()) return;
        int wanted = 0;
        if ((state == State.READING && writable) || state == State.LINGERING) wanted |= SelectionKey.OP_READ;
        if (!out.isEmpty()) wanted |= SelectionKey.OP_WRITE;
        if (wanted != interest) {
            key.interestOps(wanted);
            interest = wanted;
        }
    }

    /** Sets what the connection waits for; the deadline restarts when the wait changes or on {@code refresh}. */
    private void waitFor(Wait next, boolean refresh) {
        if (next == wait && !refresh) return;
        wait = next;
        if (next == Wait.NONE) return;
        deadline = loop.nanoTime() + next.timeoutNanos(home.context().options().timeouts());
    }

    @Override
    public String toString() {
        return "connection " + id + " (" + state + ")";
    }
}
