package keel.http.ws;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.Timer;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.http.Request;

import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * The WebSocket session protocol on a {@link Channel}, server or client side: every method runs on
 * the channel's loop, except what {@link Session} hands over from others. A server's HTTP exchange
 * (or the client's handshake) switches its channel to one after the opening handshake
 * ({@link #server}, {@link #client}); users see its {@link WsSession}.
 *
 * <pre>
 *  OPEN ──Keel's Close queued (close(), idle, stop)──► CLOSE_SENT ──peer's Close──┐
 *   │                                                      │ close timeout        │
 *   ├──peer's Close──► CLOSE_RECEIVED ──listener's onClose returned, answer──┐    │
 *   │                          │ close timeout                            ▼    ▼
 *   └──protocol error: Close(1002/1007/1009) queued, no wait──────────► CLOSING ──flushed──► LINGERING
 *                                                                            close timeout ─┘  │
 *   any ──I/O error, loop stopped──► CLOSED ◄────────────────────the channel's lingering close┘
 * </pre>
 *
 * Every close Keel makes is lingering: flush (so no message queued before the Close is lost), then
 * the channel's lingering close, so the peer gets a FIN, never an RST. Reading pauses while the
 * channel's output is over the high water mark and while the listener's backlog is (see {@link Inbox}).
 *
 * <p>With permessage-deflate agreed, messages are compressed where they are encoded and inflated
 * where they are decoded, both here on the loop whatever the listener's execution: the compressor
 * and decompressor are the connection's, and it ends them when the channel has closed.
 */
@SuppressWarnings("exports") // public for keel.http.server.nio and .client; Channel and Protocol are exported to keel.http only
public final class WsConnection implements Protocol {
    private static final Log LOG = Log.of(WsConnection.class);
    private static final byte[] EMPTY = new byte[0];

    /** The knobs one session uses: its options, the water marks of its queued sends, and what hears it. */
    public record Settings(WsOptions options, int highWaterMark, int lowWaterMark, WsObserver observer) {
    }

    /**
     * What the handshake produced: the listener, where it runs ({@code executor} null: on the loop),
     * what the session reports, and the permessage-deflate agreement ({@code deflate} null: none).
     */
    public record Binding(WsListener listener, Request request, String subprotocol, PerMessageDeflate deflate,
                          Executor executor, Object activity) {
    }

    private enum State { OPEN, CLOSE_SENT, CLOSE_RECEIVED, CLOSING, LINGERING, CLOSED }

    private final long id;
    private final Settings settings;
    private final RandomGenerator maskKeys;
    private final Binding binding;
    private final Runnable onClosed;
    private final WsObserver observer;
    private final boolean observing;
    private Channel channel;
    private EventLoop loop;
    private FrameDecoder decoder;
    private Outbound output;
    private Session session;
    private Inbox inbox;
    /** When input last arrived: the idle timer checks it when it fires, so input costs one clock read. */
    private long lastInput;
    private Timer idleTimer;
    private Timer pingTimer;
    private State state = State.OPEN;
    /** True while a batch of input is decoded: writes wait for its end, to leave in one flush. */
    private boolean processing;
    private boolean flushing;
    private boolean flushAgain;
    private boolean readPaused;
    private boolean reading = true;
    private boolean closeReported;
    /** The code the listener's onClose got (or gets), for the observer. */
    private int closeCode = WsClose.ABNORMAL;
    private boolean reportedOpen;
    private boolean reportedWritable = true;
    private Timer closeTimer;

    private WsConnection(long id, RandomGenerator maskKeys, Binding binding, Settings settings, Runnable onClosed) {
        this.id = id;
        this.binding = binding;
        this.settings = settings;
        this.maskKeys = maskKeys;
        this.onClosed = onClosed;
        this.observer = settings.observer();
        this.observing = observer != WsObserver.NONE;
    }

    /**
     * A server session, for {@link Channel#switchTo} after the 101; {@code onClosed} runs once on the
     * loop when the channel has closed (it gives back the route's session permit).
     */
    public static WsConnection server(long id, Binding binding, Settings settings, Runnable onClosed) {
        return new WsConnection(id, null, binding, settings, onClosed);
    }

    /** A client session, masking every frame with a key from {@code maskKeys}. */
    public static WsConnection client(long id, RandomGenerator maskKeys, Binding binding, Settings settings) {
        return new WsConnection(id, maskKeys, binding, settings, () -> { });
    }

    @Override
    public void onAttach(Channel attached) {
        this.channel = attached;
        this.loop = attached.loop();
        WsOptions options = settings.options();
        PerMessageDeflate deflate = binding.deflate();
        MessageInflater inflater = deflate == null ? null
                : new MessageInflater(options.maxMessageSize(), deflate.resetsCompressor(maskKeys != null));
        MessageDeflater deflater = deflate == null ? null
                : new MessageDeflater(options.compressionLevel(), deflate.resetsCompressor(maskKeys == null));
        this.decoder = new FrameDecoder(maskKeys == null, options.maxFrameSize(), options.maxMessageSize(), inflater);
        this.output = new Outbound(attached.out(), attached.bytesWritten(), maskKeys, deflater);
        this.session = new Session(id, binding.request(), binding.subprotocol(), deflate == null ? "" : deflate.header(), this, loop,
                maskKeys != null, options.maxQueuedOutput(), settings.highWaterMark(), settings.lowWaterMark());
        this.inbox = new Inbox(loop, binding.executor(), binding.activity(), settings.highWaterMark(), settings.lowWaterMark(),
                () -> onLoop(this::resumeReading),
                () -> onLoop(() -> fail(WsClose.TRY_AGAIN_LATER, "server busy: no thread for this session's callbacks")));
    }

    /** The listener's {@code onOpen}; input read past the handshake follows from the channel. */
    @Override
    public void onOpen(Channel open) {
        assert loop.inEventLoop();
        reportedOpen = true;
        observer.onSessionOpened();
        inbox.deliver(event(l -> l.onOpen(session)), 0);
        lastInput = loop.nanoTime();
        scheduleIdleCheck(settings.options().idleTimeout().toNanos());
        schedulePing();
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
        channel.close();
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void onWritten(Channel from) {
        afterWrite();
        updateReading();
    }

    /** The peer shut down its output. Without a finished close handshake that is an abnormal closure. */
    @Override
    public void onEndOfInput(Channel from) {
        if (state == State.OPEN || state == State.CLOSE_SENT) {
            endWithoutHandshake("the peer closed the connection without a close handshake");
            moveTo(State.CLOSING);
            startCloseTimer();
        }
        // CLOSE_RECEIVED: the answer is still due and the peer may still read it; CLOSING: flush first.
        afterWrite();
    }

    @Override
    public void onClosed(Channel from, Throwable cause) {
        if (cause != null) LOG.debug("ws_connection_failed", "id", id, "state", state, "cause", cause);
        if (state == State.CLOSED) return;
        if (state != State.LINGERING) output.completeWritten(session, channel.bytesWritten());
        moveTo(State.CLOSED);
        cancelTimers();
        WsClosedException closed = new WsClosedException(WsClose.ABNORMAL, "connection closed");
        output.clear(session, closed);
        output.release();
        decoder.release();
        session.stopSends();
        session.failOutbox(closed);
        endWithoutHandshake("the connection closed without a close handshake");
        if (reportedOpen) observer.onSessionClosed(closeCode);
        onClosed.run();
    }

    // ---- input -----------------------------------------------------------------------------------

    private boolean isReadingFrames() {
        return state == State.OPEN || state == State.CLOSE_SENT;
    }

    /** Decodes buffered input until it runs out, reading stops, or the listener's backlog is full. */
    @Override
    public void onInput(Channel from, ByteBuffer in) {
        lastInput = loop.nanoTime();
        processing = true;
        try {
            while (isReadingFrames() && !readPaused) {
                Decoded decoded = decoder.decode(in);
                if (decoded instanceof Decoded.NeedMore) break;
                onDecoded(decoded);
                if (inbox.pauseReading()) readPaused = true;
            }
            if (!isReadingFrames()) in.position(in.limit()); // nothing after the peer's Close (or a failure) is read
        } finally {
            processing = false;
        }
        afterWrite();
        updateReading();
    }

    private void onDecoded(Decoded decoded) {
        switch (decoded) {
            case Decoded.Text text -> {
                if (observing) observer.onMessageReceived(utf8Length(text.text()));
                inbox.deliver(event(l -> l.onText(session, text.text())), text.text().length() * 2);
            }
            case Decoded.Binary binary -> {
                if (observing) observer.onMessageReceived(binary.data().length);
                inbox.deliver(event(l -> l.onBinary(session, binary.data())), binary.data().length);
            }
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
        updateReading();
        afterWrite();
    }

    /** The channel offers input while frames are read, the listener keeps up and the session's sends are under the mark. */
    private void updateReading() {
        if (state == State.CLOSED || state == State.LINGERING) return;
        boolean wanted = isReadingFrames() && !readPaused && session.isWritable();
        if (wanted == reading) return;
        reading = wanted;
        if (wanted) channel.resumeInput();
        else channel.pauseInput();
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
        closeCode = code;
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
        closeLingering(false);
    }

    /**
     * Output is flushed (the channel's graceful close: over TLS with {@code close_notify}) or given up
     * (the close timeout: what was not written is dropped); then the channel's lingering close.
     */
    private void closeLingering(boolean flushed) {
        if (state == State.LINGERING || state == State.CLOSED) return;
        moveTo(State.LINGERING);
        output.completeWritten(session, channel.bytesWritten());
        output.clear(session, new WsClosedException(WsClose.ABNORMAL, "connection closed before the frame was written"));
        cancelTimers();
        if (flushed) channel.closeAfterFlush();
        else channel.closeLingering();
    }

    /** Reports the end to the listener, once, after every message delivered before. */
    private void reportClose(int code, String reason) {
        if (closeReported) return;
        closeReported = true;
        closeCode = code;
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
            else if (outgoing.opcode() != FrameDecoder.PING) observer.onMessageSent(outgoing.payload().length, outgoing.fin());
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
        } finally {
            flushing = false;
        }
    }

    private void flush() {
        if (state == State.LINGERING || state == State.CLOSED) return;
        channel.flush();
        if (channel.isClosed()) return;
        output.completeWritten(session, channel.bytesWritten());
        if (state == State.CLOSING && !channel.hasPendingOutput()) closeLingering(true);
    }

    /** The session crossed a water mark (any thread): tell the listener on the loop, in order. */
    void writabilityChanged() {
        onLoop(() -> {
            boolean now = session.isWritable();
            if (now == reportedWritable || state == State.CLOSED) return;
            reportedWritable = now;
            inbox.deliver(event(l -> l.onWritabilityChanged(session, now)), 0);
            if (!processing) updateReading();
        });
    }

    // ---- timers and helpers ----------------------------------------------------------------------

    /**
     * The idle timeout: a timer that does not move on every input. When it fires early it re-arms for
     * the rest of the quiet time; after a whole idle timeout without input the session closes with 1001.
     */
    private void scheduleIdleCheck(long delayNanos) {
        idleTimer = loop.schedule(delayNanos, TimeUnit.NANOSECONDS, () -> {
            long idleNanos = settings.options().idleTimeout().toNanos();
            long quiet = loop.nanoTime() - lastInput;
            if (quiet < idleNanos) {
                scheduleIdleCheck(idleNanos - quiet);
            } else if (state == State.OPEN) {
                LOG.debug("ws_idle_timeout", "id", id);
                session.close(WsClose.GOING_AWAY, "idle timeout");
            }
        });
    }

    /** A keep-alive ping every ping interval (none when it is 0), except behind a backlog. */
    private void schedulePing() {
        long pingNanos = settings.options().pingInterval().toNanos();
        if (pingNanos <= 0) return;
        pingTimer = loop.schedule(pingNanos, TimeUnit.NANOSECONDS, () -> {
            if (state == State.OPEN && channel.isWritable()) {
                output.writeControl(FrameDecoder.PING, EMPTY);
                afterWrite();
            }
            schedulePing();
        });
    }

    private void startCloseTimer() {
        if (closeTimer == null) {
            closeTimer = loop.schedule(settings.options().closeTimeout().toNanos(), TimeUnit.NANOSECONDS, this::onCloseTimeout);
        }
    }

    private void cancelTimers() {
        if (idleTimer != null) idleTimer.cancel();
        if (pingTimer != null) pingTimer.cancel();
        if (closeTimer != null) closeTimer.cancel();
    }

    /** The UTF-8 length of {@code text} without encoding it: for the observer only. */
    static int utf8Length(String text) {
        int bytes = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x800) bytes += Character.isSurrogate(c) ? 1 : 2; // a surrogate pair is 4 bytes, 2 per half
            else if (c >= 0x80) bytes += 1;
        }
        return bytes;
    }

    /** A listener callback; a failure is reported to onError and fails the connection with 1011. */
    private Runnable event(Consumer<WsListener> call) {
        return () -> {
            try {
                call.accept(binding.listener());
            } catch (Throwable failure) {
                LOG.warn("ws_listener_failed", failure, "id", id);
                try {
                    binding.listener().onError(session, failure);
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

    @Override
    public String toString() {
        return "ws connection " + id + " (" + state + ")";
    }
}
