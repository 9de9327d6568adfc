package keel.http.ws;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.IoHandler;
import keel.core.loop.Timer;
import keel.core.net.LingeringDrain;
import keel.http.Request;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * One WebSocket connection on the nio transport, server or client side, owned by one event loop for
 * life: every method runs on that loop's thread, except what {@link Session} hands over from others.
 * A transport creates it after the opening handshake with {@link #start}; users see its
 * {@link WsSession}.
 *
 * <pre>
 *  OPEN ──Keel's Close queued (close(), idle, stop)──► CLOSE_SENT ──peer's Close──┐
 *   │                                                      │ close timeout        │
 *   ├──peer's Close──► CLOSE_RECEIVED ──listener's onClose returned, answer──┐    │
 *   │                          │ close timeout                            ▼    ▼
 *   └──protocol error: Close(1002/1007/1009) queued, no wait──────────► CLOSING ──flushed──► LINGERING
 *                                                                            close timeout ─┘  │
 *   any ──I/O error, loop stopped──► CLOSED ◄──────────────peer's FIN, drain bound or linger-drain┘
 * </pre>
 *
 * Every close Keel makes is lingering: flush (so no message queued before the Close is lost), shut
 * down output, drain input, close; so the peer gets a FIN, never an RST. Reading pauses while the
 * output is over the high water mark and while the listener's backlog is (see {@link Inbox}).
 */
public final class WsConnection implements IoHandler {
    private static final Log LOG = Log.of(WsConnection.class);
    private static final byte[] EMPTY = new byte[0];

    /** The knobs one connection uses. */
    public record Settings(WsOptions options, int highWaterMark, int lowWaterMark, Duration lingerDrain) {
    }

    /** What the handshake produced: the listener, where it runs, and what the session reports. */
    public record Binding(WsListener listener, Request request, String subprotocol, Executor executor, Object activity) {
    }

    /**
     * The socket, already registered on {@code loop}, with the transport's write queue (which may hold
     * the 101 answer) and the input read past the handshake ({@code leftover}, write mode, or null).
     */
    public record Transport(SocketChannel channel, SelectionKey key, EventLoop loop, BufferPool buffers,
                            WriteQueue out, ByteBuffer leftover) {
    }

    private enum State { OPEN, CLOSE_SENT, CLOSE_RECEIVED, CLOSING, LINGERING, CLOSED }

    private final long id;
    private final WsListener listener;
    private final Settings settings;
    private final SocketChannel channel;
    private final SelectionKey key;
    private final EventLoop loop;
    private final BufferPool buffers;
    private final Outbound output;
    private final FrameDecoder decoder;
    private final Session session;
    private final Inbox inbox;
    private final Runnable onClosed;
    private ByteBuffer in;
    private State state = State.OPEN;
    private int interest;
    private boolean processing;
    private boolean flushing;
    private boolean flushAgain;
    private boolean readPaused;
    private boolean inputEnded;
    private boolean closeReported;
    private boolean reportedWritable = true;
    private final KeepAlive keepAlive;
    private Timer closeTimer;
    private Timer lingerTimer;
    private LingeringDrain lingering;

    private WsConnection(long id, RandomGenerator maskKeys, Binding binding, Settings settings, Transport transport, Runnable onClosed) {
        this.id = id;
        this.listener = binding.listener();
        this.settings = settings;
        this.channel = transport.channel();
        this.key = transport.key();
        this.loop = transport.loop();
        this.buffers = transport.buffers();
        this.output = new Outbound(transport.out(), maskKeys);
        this.in = transport.leftover();
        this.onClosed = onClosed;
        WsOptions options = settings.options();
        this.decoder = new FrameDecoder(maskKeys == null, options.maxFrameSize(), options.maxMessageSize());
        this.session = new Session(id, binding.request(), binding.subprotocol(), this, loop, maskKeys != null,
                options.maxQueuedOutput(), settings.highWaterMark(), settings.lowWaterMark());
        this.inbox = new Inbox(loop, binding.executor(), binding.activity(), settings.highWaterMark(), settings.lowWaterMark(),
                () -> onLoop(this::resumeReading),
                () -> onLoop(() -> fail(WsClose.TRY_AGAIN_LATER, "server busy: no thread for this session's callbacks")));
        this.keepAlive = new KeepAlive(loop, options, this::onIdle, this::onPingDue);
    }

    /**
     * Takes over the socket after the handshake (loop thread): the key's events come here from now on,
     * the listener's {@code onOpen} runs, and input already read is processed.
     *
     * @param maskKeys null on a server; on a client, the source of the masking keys
     * @param onClosed runs once on the loop when the socket is closed
     */
    public static WsConnection start(long id, RandomGenerator maskKeys, Binding binding, Settings settings, Transport transport,
                                     Runnable onClosed) {
        WsConnection connection = new WsConnection(id, maskKeys, binding, settings, transport, onClosed);
        connection.begin();
        return connection;
    }

    private void begin() {
        assert loop.inEventLoop();
        key.attach(this);
        interest = key.interestOps();
        inbox.deliver(event(l -> l.onOpen(session)), 0);
        keepAlive.start();
        if (in != null && in.position() > 0) processInput();
        afterWrite();
    }

    public WsSession session() {
        return session;
    }

    /** A stopping server's close: 1001, then the usual handshake; loop thread. */
    public void goAway() {
        session.close(WsClose.GOING_AWAY, "server stopping");
    }

    /** Closes the socket now, without a handshake; loop thread. */
    public void abort() {
        close();
    }

    // ---- events ----------------------------------------------------------------------------------

    @Override
    public void onReady(SelectionKey readyKey, int ready) {
        try {
            if ((ready & SelectionKey.OP_WRITE) != 0) afterWrite();
            if (state != State.CLOSED && (ready & SelectionKey.OP_READ) != 0) onReadable();
        } catch (IOException | RuntimeException e) {
            LOG.debug("ws_connection_failed", "id", id, "state", state, "cause", e);
            close();
        }
    }

    @Override
    public void onClosedByLoop() {
        close();
    }

    private void onReadable() throws IOException {
        if (state == State.LINGERING) {
            if (lingering.drain(channel, buffers)) close();
            return;
        }
        if (!isReadingFrames() || inputEnded) return;
        if (in == null) in = buffers.acquire();
        int n = channel.read(in);
        if (n < 0) {
            onEndOfInput();
        } else if (n > 0) {
            keepAlive.onInput();
            processInput();
        }
        afterWrite();
    }

    /** The peer shut down its output. Without a finished close handshake that is an abnormal closure. */
    private void onEndOfInput() {
        inputEnded = true;
        releaseInput();
        if (state == State.OPEN || state == State.CLOSE_SENT) {
            endWithoutHandshake("the peer closed the connection without a close handshake");
            moveTo(State.CLOSING);
            startCloseTimer();
        }
        // CLOSE_RECEIVED: the answer is still due and the peer may still read it; CLOSING: flush first.
    }

    // ---- input -----------------------------------------------------------------------------------

    private boolean isReadingFrames() {
        return state == State.OPEN || state == State.CLOSE_SENT;
    }

    /** Decodes buffered input until it runs out, reading stops, or the listener's backlog is full. */
    private void processInput() {
        processing = true;
        try {
            in.flip();
            while (isReadingFrames() && !readPaused) {
                Decoded decoded = decoder.decode(in);
                if (decoded instanceof Decoded.NeedMore) break;
                onDecoded(decoded);
                if (inbox.pauseReading()) readPaused = true;
            }
        } finally {
            processing = false;
            if (in != null) {
                if (isReadingFrames()) in.compact();
                else in.clear(); // nothing after the peer's Close (or a failure) is read
                if (in.position() == 0) releaseInput();
            }
        }
    }

    private void onDecoded(Decoded decoded) {
        switch (decoded) {
            case Decoded.Text text -> inbox.deliver(event(l -> l.onText(session, text.text())), text.text().length() * 2);
            case Decoded.Binary binary -> inbox.deliver(event(l -> l.onBinary(session, binary.data())), binary.data().length);
            case Decoded.Ping ping -> {
                if (state == State.OPEN) output.writeControl(FrameDecoder.PONG, ping.data()); // RFC 6455 §5.5.2
                inbox.deliver(event(l -> l.onPing(session, ping.data())), ping.data().length);
            }
            case Decoded.Pong pong -> inbox.deliver(event(l -> l.onPong(session, pong.data())), pong.data().length);
            case Decoded.Close close -> onPeerClose(close.code(), close.reason());
            case Decoded.Failed failed -> fail(failed.code(), failed.reason());
            case Decoded.NeedMore needMore -> { }
        }
    }

    private void resumeReading() {
        if (!readPaused || state == State.CLOSED) return;
        readPaused = false;
        if (in != null && in.position() > 0 && isReadingFrames()) processInput();
        afterWrite();
    }

    // ---- closing ---------------------------------------------------------------------------------

    /** The peer's Close: it ends our handshake, or starts one that the listener's onClose precedes. */
    private void onPeerClose(int code, String reason) {
        if (state == State.CLOSE_SENT) {
            // The close timer keeps running: it also bounds the flush before the lingering close.
            session.closed.complete(null);
            reportClose(code, reason);
            moveTo(State.CLOSING);
            return;
        }
        session.markClosing();
        moveTo(State.CLOSE_RECEIVED);
        startCloseTimer();
        closeReported = true;
        Runnable onClose = event(l -> l.onClose(session, code, reason));
        inbox.deliver(() -> {
            onClose.run();
            onLoop(() -> answerClose(code));
        }, 0);
    }

    /** After the listener's onClose: what it sent, then the answering Close (echoing the peer's code). */
    private void answerClose(int code) {
        if (state != State.CLOSE_RECEIVED) return; // timed out or failed meanwhile
        writeOutbox();
        session.stopSends();
        byte[] payload = FrameEncoder.closePayload(code, "");
        output.write(new Session.Outgoing(FrameDecoder.CLOSE, true, payload, session.closed, output.frameLength(payload.length), false));
        moveTo(State.CLOSING);
        afterWrite();
    }

    /** Keel's Close is in the write queue (close(), idle timeout, stopping server). */
    private void onOwnCloseQueued() {
        if (state == State.OPEN) {
            moveTo(State.CLOSE_SENT);
            startCloseTimer();
        }
    }

    /** RFC 6455 §7.1.7, fail the connection: queue a Close with {@code code} and close without waiting for an answer. */
    private void fail(int code, String reason) {
        if (state == State.CLOSING || state == State.LINGERING || state == State.CLOSED) return;
        LOG.debug("ws_failed", "id", id, "code", code, "reason", reason);
        boolean closeSent = state == State.CLOSE_SENT;
        if (!closeSent) writeOutbox();
        session.stopSends();
        if (!closeSent) output.writeControl(FrameDecoder.CLOSE, FrameEncoder.closePayload(code, reason));
        moveTo(State.CLOSING);
        startCloseTimer();
        session.closed.completeExceptionally(new WsClosedException(code, reason));
        reportClose(code, reason);
        afterWrite();
    }

    private void endWithoutHandshake(String reason) {
        session.stopSends();
        session.closed.completeExceptionally(new WsClosedException(WsClose.ABNORMAL, reason));
        reportClose(WsClose.ABNORMAL, reason);
    }

    private void onCloseTimeout() {
        if (state == State.LINGERING || state == State.CLOSED) return;
        LOG.debug("ws_close_timeout", "id", id, "state", state);
        endWithoutHandshake("the close handshake did not finish within " + settings.options().closeTimeout().toMillis() + " ms");
        closeLingering();
    }

    /** Output is flushed (or given up): shut it down and drain input until the peer's FIN. */
    private void closeLingering() {
        if (state == State.LINGERING || state == State.CLOSED) return;
        moveTo(State.LINGERING);
        output.clear(session, new WsClosedException(WsClose.ABNORMAL, "connection closed before the frame was written"));
        releaseInput();
        cancelTimers();
        try {
            lingering = LingeringDrain.start(channel);
        } catch (IOException e) {
            close();
            return;
        }
        if (inputEnded) {
            close();
            return;
        }
        lingerTimer = loop.schedule(settings.lingerDrain().toNanos(), TimeUnit.NANOSECONDS, this::close);
        updateInterest();
    }


    private void close() {
        if (state == State.CLOSED) return;
        moveTo(State.CLOSED);
        cancelTimers();
        cancel(lingerTimer);
        key.cancel();
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("ws_close_failed", "id", id, "cause", e);
        }
        releaseInput();
        WsClosedException closed = new WsClosedException(WsClose.ABNORMAL, "connection closed");
        output.clear(session, closed);
        session.stopSends();
        session.failOutbox(closed);
        endWithoutHandshake("the connection closed without a close handshake");
        onClosed.run();
    }

    /** Reports the end to the listener, once, after every message delivered before. */
    private void reportClose(int code, String reason) {
        if (closeReported) return;
        closeReported = true;
        inbox.deliver(event(l -> l.onClose(session, code, reason)), 0);
    }

    private void moveTo(State next) {
        boolean legal = switch (next) {
            case OPEN -> false;
            case CLOSE_SENT, CLOSE_RECEIVED -> state == State.OPEN;
            case CLOSING -> state == State.OPEN || state == State.CLOSE_SENT || state == State.CLOSE_RECEIVED;
            case LINGERING -> state != State.LINGERING && state != State.CLOSED;
            case CLOSED -> state != State.CLOSED;
        };
        if (!legal) throw new IllegalStateException("ws connection " + id + ": " + state + " -> " + next);
        state = next;
    }

    // ---- output ----------------------------------------------------------------------------------

    /** Writes the frames sessions queued, in order; those too late for a Close fail. Loop thread. */
    void drainOutbox() {
        writeOutbox();
        afterWrite();
    }

    private void writeOutbox() {
        Session.Outgoing outgoing;
        while ((outgoing = session.pollOutgoing()) != null) {
            if (state != State.OPEN && state != State.CLOSE_RECEIVED) {
                session.failed(outgoing, new WsClosedException(WsClose.ABNORMAL, "session " + id + " is closing or closed"));
                continue;
            }
            output.write(outgoing);
            if (outgoing.opcode() == FrameDecoder.CLOSE) onOwnCloseQueued();
        }
    }

    /**
     * Flushes and updates interest, unless input is being processed (it does both when done). A send
     * made by a completion's continuation lands here while a flush runs: it only asks that flush for
     * another round, so a chain of "send the next when the last is written" loops instead of recursing.
     */
    private void afterWrite() {
        if (processing || state == State.CLOSED) return;
        if (flushing) {
            flushAgain = true;
            return;
        }
        flushing = true;
        try {
            do {
                flushAgain = false;
                flush();
            } while (flushAgain && state != State.CLOSED);
        } catch (IOException e) {
            LOG.debug("ws_write_failed", "id", id, "cause", e);
            close();
            return;
        } finally {
            flushing = false;
        }
        updateInterest();
    }

    private void flush() throws IOException {
        if (state == State.LINGERING || state == State.CLOSED) return;
        output.writeTo(channel);
        output.completeWritten(session);
        if (state == State.CLOSING && output.isEmpty()) closeLingering();
    }

    /** The session crossed a water mark (any thread): tell the listener on the loop, in order. */
    void writabilityChanged() {
        onLoop(() -> {
            boolean now = session.isWritable();
            if (now == reportedWritable || state == State.CLOSED) return;
            reportedWritable = now;
            inbox.deliver(event(l -> l.onWritabilityChanged(session, now)), 0);
            if (!processing) updateInterest();
        });
    }

    private void updateInterest() {
        if (state == State.CLOSED || !key.isValid()) return;
        int wanted = 0;
        boolean outputBackedUp = !session.isWritable() || output.pendingBytes() >= settings.highWaterMark();
        if (state == State.LINGERING || (isReadingFrames() && !inputEnded && !readPaused && !outputBackedUp)) {
            wanted |= SelectionKey.OP_READ;
        }
        if (!output.isEmpty() && state != State.LINGERING) wanted |= SelectionKey.OP_WRITE;
        if (wanted != interest) {
            key.interestOps(wanted);
            interest = wanted;
        }
    }

    // ---- timers and helpers ----------------------------------------------------------------------

    private void onIdle() {
        if (state != State.OPEN) return;
        LOG.debug("ws_idle_timeout", "id", id);
        session.close(WsClose.GOING_AWAY, "idle timeout");
    }

    private void onPingDue() {
        if (state != State.OPEN || output.pendingBytes() >= settings.highWaterMark()) return; // no pings behind a backlog
        output.writeControl(FrameDecoder.PING, EMPTY);
        afterWrite();
    }

    private void startCloseTimer() {
        if (closeTimer == null) {
            closeTimer = loop.schedule(settings.options().closeTimeout().toNanos(), TimeUnit.NANOSECONDS, this::onCloseTimeout);
        }
    }

    private void cancelTimers() {
        keepAlive.stop();
        cancel(closeTimer);
    }

    private static void cancel(Timer timer) {
        if (timer != null) timer.cancel();
    }

    /** A listener callback; a failure is reported to onError and fails the connection with 1011. */
    private Runnable event(Consumer<WsListener> call) {
        return () -> {
            try {
                call.accept(listener);
            } catch (Throwable failure) {
                LOG.warn("ws_listener_failed", failure, "id", id);
                try {
                    listener.onError(session, failure);
                } catch (Throwable again) {
                    LOG.warn("ws_listener_failed", again, "id", id, "callback", "onError");
                }
                onLoop(() -> fail(WsClose.INTERNAL_ERROR, "internal error"));
            }
        };
    }

    private void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("ws_task_dropped", "id", id, "cause", e.getMessage()); // the loop is stopping and closes the socket
        }
    }

    private void releaseInput() {
        if (in == null) return;
        buffers.release(in);
        in = null;
    }

    @Override
    public String toString() {
        return "ws connection " + id + " (" + state + ")";
    }
}
