package keel.core.net;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.IoHandler;
import keel.core.loop.Poller;
import keel.core.loop.Timer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * One socket, owned by one event loop for life, written once for every {@link Protocol}: its
 * registration and interest, the pooled input buffer, the {@link WriteQueue} with its water marks,
 * one deadline, the lingering close, and (with an {@link SSLEngine}) TLS, which protocols never see.
 *
 * <pre>
 *                  ┌─────────────────── plain ──────────────────┐
 *                  │                                            ▼
 *   CONNECTING ──connected──► HANDSHAKING ──handshake done──► OPEN ──closeAfterFlush──► CLOSING
 *   (accept():         (TLS)       │                            │                          │ output written
 *    connected at once)            └──────closeLingering────────┴──────closeLingering──────┤ (and close_notify)
 *                                                                                          ▼
 *                                                                                      LINGERING
 *                                                                                          │ peer's FIN, byte bound, drain time
 *   any ──close(), I/O error, handshake failure, stalled write──► CLOSED ◄─────────────────┘
 * </pre>
 *
 * <p>The state changes in one method ({@code moveTo}), on the loop, along these edges. What one state
 * alone uses lives with it: the handshake and its deadline in the TLS layer, the drain and its
 * deadline in the {@link LingeringDrain}.
 *
 * <p>Reading: input goes to the protocol's {@link Protocol#onInput} while the channel is open, the
 * protocol has not paused it, and queued output is under the high water mark (a peer that does not
 * read cannot make the channel read more; {@link Settings#readsWhileBacklogged} turns that off for a
 * client, which must see an early answer). Writing: protocols put bytes into {@link #out()} and call
 * {@link #flush()}; input handled in one event is answered with one gathering write.
 *
 * <p>Deadlines: the protocol sets one ({@link #deadlineAfter}); while output waits, a write that makes
 * no progress for {@link Settings#writeStallTimeout} closes the channel instead; a TLS handshake and
 * a lingering close have their own bound. One loop timer serves them all, re-armed only when it fires.
 *
 * <p>Thread contract: the loop thread only, except {@link #closeFromAnyThread}.
 */
public final class Channel implements IoHandler {
    private static final Log LOG = Log.of(Channel.class);
    private static final long NONE = Long.MIN_VALUE;
    /** The size of {@link Settings#tlsBuffers}' buffers: a whole TLS record, or its plain text. */
    public static final int TLS_BUFFER_SIZE = TlsLayer.BUFFER_SIZE;

    /**
     * The knobs of a kind of channel (one per server loop, or per client loop).
     *
     * @param buffers              pooled input buffers (plain text)
     * @param tlsBuffers           pooled buffers of TLS channels ({@link TlsBuffers#of}); null without TLS
     * @param highWaterMark        queued output bytes (encrypted bytes, over TLS) at which the channel stops reading
     * @param lowWaterMark         queued output bytes under which it reads again
     * @param writeStallTimeout    how long queued output may make no progress before the channel closes; zero: no bound
     * @param lingerDrain          how long a lingering close reads and drops input before it closes
     * @param handshakeTimeout     how long a TLS handshake may take
     * @param readsWhileBacklogged keep reading while output is over the high water mark (a client: an early answer)
     * @param nativeIo             read and write through recv/send where the JVM allows it ({@link SocketIo})
     * @param observer             bytes and TLS failures, for metrics
     */
    public record Settings(BufferPool buffers, TlsBuffers tlsBuffers, int highWaterMark, int lowWaterMark,
                           Duration writeStallTimeout, Duration lingerDrain, Duration handshakeTimeout,
                           boolean readsWhileBacklogged, boolean nativeIo, ChannelObserver observer) {
        public Settings {
            Objects.requireNonNull(buffers, "buffers");
            if (tlsBuffers != null && tlsBuffers.plainText().bufferSize() < buffers.bufferSize() + TLS_BUFFER_SIZE) {
                throw new IllegalArgumentException("TLS plain-text buffers must hold the input buffer and one record: TlsBuffers.of");
            }
            Objects.requireNonNull(observer, "observer");
            if (lowWaterMark < 0 || lowWaterMark >= highWaterMark) throw new IllegalArgumentException("low water mark must be in 0..high");
        }
    }

    /**
     * The buffers of one loop's TLS channels: for records ({@link #TLS_BUFFER_SIZE}), and for their
     * plain text, with room for one whole record beside the most a protocol may leave unread (a plain
     * channel's whole input buffer), so a record can always be opened.
     */
    public record TlsBuffers(BufferPool records, BufferPool plainText) {
        public static TlsBuffers of(int plainBufferSize, int maxPooled) {
            return new TlsBuffers(new BufferPool(TLS_BUFFER_SIZE, maxPooled), new BufferPool(plainBufferSize + TLS_BUFFER_SIZE, maxPooled));
        }
    }

    private enum State {
        CONNECTING, HANDSHAKING, OPEN, CLOSING, LINGERING, CLOSED;

        /** Whether the channel may move to this state from {@code from} (the diagram above). */
        boolean follows(State from) {
            return switch (this) {
                case CONNECTING -> false; // where every channel starts
                case HANDSHAKING -> from == CONNECTING;
                case OPEN -> from == CONNECTING || from == HANDSHAKING;
                case CLOSING -> from == OPEN;
                case LINGERING -> from == HANDSHAKING || from == OPEN || from == CLOSING;
                case CLOSED -> from != CLOSED;
            };
        }
    }

    /**
     * How far the end of input (the peer's FIN, or TLS {@code close_notify}) has come: once read, the
     * protocol hears of it after the input before it, and never while it has paused input.
     */
    private enum InputEnd { NOT_YET, UNREPORTED, REPORTED }

    private final EventLoop loop;
    private final SocketChannel socket;
    /** The socket's reads and writes (recv/send where it can); the socket itself for the rest. */
    private final SocketIo io;
    private final Settings settings;
    private final WriteQueue out;
    private final TlsLayer tls;
    private final Consumer<Channel> whenClosed;
    private final Runnable flushQueuedOutput = () -> {
        flushQueued = false;
        flush();
    };
    private Protocol protocol;
    private Poller.Registration registration;
    private State state = State.CONNECTING;
    /** Set as the channel starts lingering. */
    private LingeringDrain lingering;
    private ByteBuffer in;
    /**
     * True while the protocol reads {@link #in} (read mode), inside its {@link Protocol#onInput}: a call
     * it makes then that asks for input reads and delivers nothing; {@link #deliver} sees to it when
     * onInput returns.
     */
    private boolean inputFlipped;
    private boolean inputPaused;
    private InputEnd inputEnd = InputEnd.NOT_YET;
    private boolean writable = true;
    /** A task is queued to tell the protocol that output fell under the low water mark / to flush: one of each at a time. */
    private boolean writableNoticeQueued;
    private boolean flushQueued;
    private long bytesWritten;
    /** The protocol's deadline, or {@link #NONE}, and how long it was set for. */
    private long deadline = NONE;
    private long deadlineNanos;
    /** While output waits: when it last moved (or started waiting). */
    private long lastWriteProgress = NONE;
    private Timer timer;

    private Channel(EventLoop loop, SocketChannel socket, Settings settings, SSLEngine engine, Protocol protocol,
                    Consumer<Channel> whenClosed) {
        this.loop = loop;
        this.socket = socket;
        this.io = new SocketIo(socket, settings.nativeIo());
        this.settings = settings;
        this.out = new WriteQueue(settings.buffers());
        this.tls = engine == null ? null : new TlsLayer(this, engine, settings.tlsBuffers());
        this.protocol = protocol;
        this.whenClosed = whenClosed;
    }

    /**
     * Takes an accepted, non-blocking socket (loop thread): registers it and attaches {@code protocol},
     * which is opened at once, or after the TLS handshake when {@code engine} is given (server mode).
     * {@code whenClosed} runs once when the channel closes.
     */
    public static Channel accept(SocketChannel socket, EventLoop loop, Settings settings, SSLEngine engine,
                                 Protocol protocol, Consumer<Channel> whenClosed) {
        Channel channel = new Channel(loop, socket, settings, engine, protocol, whenClosed);
        protocol.onAttach(channel);
        try {
            channel.registration = loop.register(socket, 0, channel);
            channel.onConnected();
        } catch (IOException | RuntimeException e) {
            channel.closeWith(e); // the caller sees it closed
        }
        return channel;
    }

    /**
     * Connects a new socket to {@code address} (loop thread); the protocol is attached at once and
     * opened once connected (and handshaken, with a client-mode {@code engine}). A failure, at once or
     * later, reaches {@link Protocol#onClosed} with its cause; the protocol bounds the connect with
     * its deadline.
     */
    public static Channel connect(InetSocketAddress address, EventLoop loop, Settings settings, SSLEngine engine,
                                  Protocol protocol, Consumer<Channel> whenClosed) {
        SocketChannel socket;
        try {
            socket = SocketChannel.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a socket", e);
        }
        Channel channel = new Channel(loop, socket, settings, engine, protocol, whenClosed);
        protocol.onAttach(channel);
        try {
            socket.configureBlocking(false);
            socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.registration = loop.register(socket, 0, channel);
            if (socket.connect(address)) channel.onConnected();
            else channel.updateInterest();
        } catch (IOException | RuntimeException e) {
            channel.closeWith(e);
        }
        return channel;
    }

    // ---- what protocols use ----------------------------------------------------------------------

    public EventLoop loop() {
        return loop;
    }

    public Protocol protocol() {
        return protocol;
    }

    /** Where a protocol queues its output (plain text); {@link #flush()} sends it. */
    public WriteQueue out() {
        return out;
    }

    /**
     * Hands the channel to {@code next} (an upgrade): it is attached and opened now and gets the input
     * not consumed yet (when the current {@link Protocol#onInput} returns, when inside it).
     */
    public void switchTo(Protocol next) {
        assert loop.inEventLoop();
        protocol = next;
        deadline = NONE;
        next.onAttach(this);
        next.onOpen(this);
        resumeInput();
    }

    /**
     * Stops offering input to the protocol until {@link #resumeInput}. The channel still reads while
     * its input buffer has room, so a pause of a moment (a handler off the loop) changes no poller
     * interest; a peer that goes on sending is held back by the full buffer, then by TCP. The end of
     * input, when it comes meanwhile, reaches the protocol after it resumes.
     */
    public void pauseInput() {
        assert loop.inEventLoop();
        inputPaused = true;
    }

    /**
     * Offers buffered input again, then reads on. Inside {@link Protocol#onInput} it only lifts the
     * pause: the protocol reads on from the buffer it holds.
     */
    public void resumeInput() {
        assert loop.inEventLoop();
        inputPaused = false;
        if (inputFlipped) return;
        deliver();
        if (endOfTlsInput()) return;
        flush();
    }

    /**
     * The peer's {@code close_notify} came with the last records. Like a FIN, the protocol hears of it
     * only once it has taken the input before it and wants more (not while a handler runs).
     */
    private boolean endOfTlsInput() {
        if (tls == null || !tls.isInboundDone() || inputEnd != InputEnd.NOT_YET || inputPaused || state != State.OPEN || hasBufferedInput()) return false;
        onEndOfInput();
        return true;
    }

    /**
     * Reads what has arrived now, without waiting for the poller to report it (a pooled connection
     * checked before reuse sees a FIN or stray bytes here; from inside the protocol's onInput it reads
     * nothing); false when the channel is no longer open.
     */
    public boolean readNow() {
        assert loop.inEventLoop();
        if (state != State.OPEN) return false;
        try {
            onReadable();
        } catch (IOException | RuntimeException e) {
            closeWith(e);
        }
        return state == State.OPEN;
    }

    /** True when plain text the protocol has not consumed is buffered (a part of a TLS record does not count). */
    public boolean hasBufferedInput() {
        return in != null && (inputFlipped ? in.hasRemaining() : in.position() > 0);
    }

    /** True while the channel carries bytes both ways (not connecting, handshaking or closing). */
    public boolean isOpen() {
        return state == State.OPEN;
    }

    public boolean isClosed() {
        return state == State.CLOSED;
    }

    boolean isHandshaking() {
        return state == State.HANDSHAKING;
    }

    /** The TLS session once the handshake finished; null on a plain channel. */
    public SSLSession tlsSession() {
        return tls == null || state == State.HANDSHAKING ? null : tls.session();
    }

    /** Sets the protocol's deadline {@code nanos} from now, as the loop last read its clock ({@link Protocol#onDeadline} when it passes). */
    public void deadlineAfter(long nanos) {
        assert loop.inEventLoop();
        deadlineNanos = nanos;
        // From the time the loop took up this channel or task (it read its clock then): a deadline of
        // seconds needs no clock read of its own, which an off-loop request would pay twice.
        deadline = loop.lastNanoTime() + nanos;
        armTimer(deadline);
    }

    public void clearDeadline() {
        assert loop.inEventLoop();
        deadline = NONE;
    }

    /**
     * Writes what the socket takes now, encrypting over TLS; then updates writability (hysteresis
     * between the water marks) and interest. A failure closes the channel.
     */
    public void flush() {
        assert loop.inEventLoop();
        if (writeQueued()) noticeWritableLater();
    }

    /** {@link #flush}'s writing; true when output fell under the low water mark (the caller tells the protocol). */
    private boolean writeQueued() {
        if (state != State.OPEN && state != State.CLOSING) return false;
        try {
            if (tls == null) writePlain();
            else tls.flush();
        } catch (IOException | RuntimeException e) {
            closeWith(e);
            return false;
        }
        return afterWrite();
    }

    /**
     * Flushes after the tasks the loop holds now: answers that reached the loop together (one task
     * each) leave in one write. At once when the loop cannot take the task.
     */
    public void flushSoon() {
        assert loop.inEventLoop();
        if (flushQueued) return;
        try {
            loop.execute(flushQueuedOutput);
            flushQueued = true;
        } catch (RejectedExecutionException full) {
            flush();
        }
    }

    /** True while queued output is under the high water mark (with hysteresis down to the low one). */
    public boolean isWritable() {
        if (writable && pendingOutput() >= settings.highWaterMark()) writable = false;
        return writable;
    }

    public boolean hasPendingOutput() {
        return pendingOutput() > 0;
    }

    /** Plain-text bytes taken from {@link #out()} so far (written, or encrypted for writing, over TLS). */
    public long bytesWritten() {
        return bytesWritten;
    }

    /**
     * Closes gracefully: queued output is written first (bounded by the write-stall timeout), then,
     * over TLS, {@code close_notify}, then the lingering close.
     */
    public void closeAfterFlush() {
        if (state == State.OPEN) {
            moveTo(State.CLOSING); // input is offered no more
            flush();
        } else if (state == State.HANDSHAKING || state == State.CONNECTING) {
            close();
        }
    }

    /**
     * The lingering close now, dropping output not written yet: shut down output, drain input briefly,
     * close. Over TLS with nothing left to write (an idle connection), {@code close_notify} goes first,
     * as RFC 8446 §6.1 asks, best effort: only what the socket takes at once.
     */
    public void closeLingering() {
        if (state == State.LINGERING || state == State.CLOSED) return;
        boolean nothingToDrop = pendingOutput() == 0;
        out.clear();
        if (tls != null) {
            // Never after dropped output: close_notify would vouch for a response that was cut short.
            if (nothingToDrop && (state == State.OPEN || state == State.CLOSING)) tls.closeOutbound();
            else tls.dropOutput();
        }
        startLingering();
    }

    /** Closes at once. */
    public void close() {
        closeWith(null);
    }

    /** Closes with {@code cause} reported to the protocol (null: an orderly close). */
    public void closeWith(Throwable cause) {
        if (state == State.CLOSED) return;
        moveTo(State.CLOSED);
        if (timer != null) timer.cancel();
        if (registration != null) registration.cancel();
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "cause", e);
        }
        out.clear();
        if (!inputFlipped) releaseInput(); // otherwise the protocol still reads it: released when onInput returns
        if (tls != null) tls.release();
        try {
            protocol.onClosed(this, cause);
        } finally {
            whenClosed.accept(this);
        }
    }

    /**
     * For a thread that cannot reach the loop: closes on the loop when it takes the task, otherwise
     * (a full or stopped loop) closes the socket here and leaves the rest to {@link #closeIfSocketClosed}.
     */
    public void closeFromAnyThread() {
        try {
            loop.execute(this::close);
        } catch (RejectedExecutionException e) {
            try {
                socket.close();
            } catch (IOException closeFailed) {
                LOG.debug("close_failed", "cause", closeFailed);
            }
        }
    }

    /** Finishes a close begun by {@link #closeFromAnyThread} (a sweep calls this); loop thread. */
    public void closeIfSocketClosed() {
        if (!socket.isOpen()) close();
    }

    // ---- events ----------------------------------------------------------------------------------

    @Override
    public void onReady(int ready) {
        try {
            if ((ready & Poller.CONNECT) != 0) {
                if (socket.finishConnect()) onConnected();
                return;
            }
            if (state == State.HANDSHAKING) {
                tls.handshake();
                return;
            }
            if ((ready & Poller.WRITE) != 0) onWritable();
            if ((ready & Poller.READ) != 0 && state != State.CLOSED) onReadable();
        } catch (IOException | RuntimeException e) {
            LOG.debug("channel_failed", "state", state, "protocol", protocol, "cause", e);
            closeWith(e);
        }
    }

    @Override
    public void onClosedByLoop() {
        closeWith(new IOException("event loop " + loop.name() + " stopped"));
    }

    /** Connected, or accepted: open now, or once the TLS handshake, bounded in time, is done. */
    private void onConnected() throws IOException {
        if (tls == null) {
            open();
            return;
        }
        moveTo(State.HANDSHAKING);
        long handshakeDeadline = loop.nanoTime() + settings.handshakeTimeout().toNanos();
        armTimer(handshakeDeadline);
        tls.begin(handshakeDeadline);
    }

    /** Connected and, over TLS, handshaken: the protocol may speak. Called by the TLS layer too. */
    void open() {
        moveTo(State.OPEN);
        protocol.onOpen(this);
        if (state != State.OPEN) return;
        deliver(); // bytes that came with the end of a handshake
        releaseInputIfEmpty();
        if (endOfTlsInput()) return;
        flush();
    }

    private void onWritable() {
        writeQueued(); // the protocol hears of it now, whether output fell under the low water mark or not
        if (state == State.OPEN || state == State.CLOSING) protocol.onWritten(this);
    }

    /**
     * Output fell under the low water mark in a flush the protocol made itself: it hears of it from a
     * task, never from inside its own call.
     */
    private void noticeWritableLater() {
        if (writableNoticeQueued) return;
        writableNoticeQueued = true;
        try {
            loop.execute(() -> {
                writableNoticeQueued = false;
                if (state == State.OPEN || state == State.CLOSING) {
                    protocol.onWritten(this);
                    flush();
                }
            });
        } catch (RejectedExecutionException stopping) {
            writableNoticeQueued = false; // the loop closes its channels
        }
    }

    private void onReadable() throws IOException {
        if (state == State.LINGERING) {
            if (lingering.drain(socket, settings.buffers())) close();
            return;
        }
        // Reached from inside the protocol's onInput (through readNow, as a pooled client connection's
        // check can be), nothing is read: the plain input buffer is flipped (a read would land over
        // bytes the protocol has not read yet), and nothing read could be offered before onInput
        // returns. The poller reports the socket again after onInput.
        if (state != State.OPEN || inputFlipped || !wantsInput()) return;
        int n;
        if (tls == null) {
            if (in == null) in = settings.buffers().acquire();
            n = io.read(in);
        } else {
            n = tls.read();
        }
        if (n < 0) {
            onEndOfInput();
            return;
        }
        if (n > 0) {
            settings.observer().onBytesRead(n);
            deliver();
            if (endOfTlsInput()) return;
        }
        flush();
    }

    /** The peer ended its output (a FIN, or TLS {@code close_notify}). */
    private void onEndOfInput() {
        inputEnd = InputEnd.UNREPORTED;
        deliver(); // what was buffered before the end, then the end itself
        flush();
    }

    /**
     * Offers buffered input to the protocol until it stops consuming, then the end of input when it is
     * due. Never entered from inside {@code onInput}: a protocol's call there that asks for input only
     * records it, and what it has not seen is offered when onInput returns: records opened into the
     * room it made, or all of it to a protocol switched to.
     */
    private void deliver() {
        assert !inputFlipped : "input offered from inside onInput";
        if (tls != null) tls.decrypt();
        while (in != null && in.position() > 0 && state == State.OPEN && !inputPaused) {
            Protocol reader = protocol;
            in.flip();
            inputFlipped = true;
            try {
                reader.onInput(this, in);
            } finally {
                inputFlipped = false;
                compactInput();
            }
            if (protocol == reader && (tls == null || !tls.decrypt())) break;
        }
        if (inputEnd == InputEnd.UNREPORTED && !inputPaused && state == State.OPEN) {
            inputEnd = InputEnd.REPORTED;
            protocol.onEndOfInput(this);
        }
    }

    /** The plain-text input buffer, in write mode; the TLS layer decrypts into it. */
    ByteBuffer input() {
        if (in == null) in = tls != null ? tls.acquire() : settings.buffers().acquire();
        return in;
    }

    /** Gives an empty input buffer back (the TLS layer took one to open records into, and none came). */
    void releaseInputIfEmpty() {
        if (in != null && !inputFlipped && in.position() == 0) releaseInput();
    }

    private void compactInput() {
        if (in == null) return;
        if (state == State.LINGERING || state == State.CLOSED) {
            releaseInput(); // closed from inside onInput: nothing more is read
            return;
        }
        in.compact();
        if (in.position() == 0) releaseInput();
    }

    private void releaseInput() {
        if (in == null) return;
        if (tls != null) tls.releaseBuffer(in);
        else settings.buffers().release(in);
        in = null;
    }

    private boolean wantsInput() {
        // While the protocol reads it (flipped), the buffer has room when its bytes do not fill it.
        boolean room = tls != null ? tls.canRead() : in == null || (inputFlipped ? in.remaining() < in.capacity() : in.hasRemaining());
        return room && inputEnd == InputEnd.NOT_YET && (settings.readsWhileBacklogged() || isWritable());
    }

    // ---- writing and closing ---------------------------------------------------------------------

    private void writePlain() throws IOException {
        if (out.isEmpty()) return;
        long before = out.pendingBytes();
        out.writeTo(io);
        long written = before - out.pendingBytes();
        if (written > 0) {
            bytesWritten += written;
            onSocketWrite(written);
        }
    }

    /** Bytes went to the socket (called by the TLS layer with encrypted bytes). */
    void onSocketWrite(long bytes) {
        settings.observer().onBytesWritten(bytes);
        // The loop's last reading (this handling's start) is close enough for a stall counted in seconds, and costs no clock read.
        lastWriteProgress = loop.lastNanoTime();
    }

    /** Plain text taken by the TLS layer. */
    void onEncrypted(long plainBytes) {
        bytesWritten += plainBytes;
    }

    private long pendingOutput() {
        return out.pendingBytes() + (tls == null ? 0 : tls.pendingBytes());
    }

    /** Writability, the stall and idle clocks, a closing channel's next step, interest; true when output fell under the low water mark. */
    private boolean afterWrite() {
        long pending = pendingOutput();
        boolean writableAgain = !writable && pending <= settings.lowWaterMark();
        if (writableAgain) writable = true;
        else if (writable && pending >= settings.highWaterMark()) writable = false;
        if (pending == 0 && lastWriteProgress != NONE) {
            lastWriteProgress = NONE;
            // The protocol's wait starts again now that its output is out (a response that took long to
            // send does not eat into the idle time after it).
            if (deadline != NONE) deadline = loop.lastNanoTime() + deadlineNanos;
        }
        if (pending == 0 && state == State.CLOSING) {
            if (tls == null || tls.closeOutbound()) {
                startLingering();
                return false;
            }
            pending = pendingOutput(); // close_notify waits for the socket: bounded like any write
        }
        if (pending > 0) {
            if (lastWriteProgress == NONE) lastWriteProgress = loop.lastNanoTime(); // output starts waiting now
            // Armed whether or not this write moved bytes: a first write that only filled the socket's
            // buffer made progress, and the stall is counted from it.
            armTimer(effectiveDeadline());
        }
        updateInterest();
        return writableAgain;
    }

    /** Shuts down output and drains input, bounded in bytes and time; a peer that ended its output already is closed at once. */
    private void startLingering() {
        if (inputEnd != InputEnd.NOT_YET) {
            close();
            return;
        }
        try {
            lingering = LingeringDrain.start(socket, loop.nanoTime() + settings.lingerDrain().toNanos());
        } catch (IOException e) {
            close();
            return;
        }
        moveTo(State.LINGERING);
        if (!inputFlipped) releaseInput(); // otherwise the protocol still reads it: released when onInput returns
        if (tls != null) tls.releaseInput();
        armTimer(lingering.deadline());
        updateInterest();
    }

    /** The one place the state changes: on the channel's loop, along the diagram's edges. */
    private void moveTo(State next) {
        assert loop.inEventLoop() : "channel state changed off its loop: " + next;
        assert next.follows(state) : "channel: " + state + " -> " + next;
        state = next;
    }

    void updateInterest() {
        if (registration == null || state == State.CLOSED) return;
        int ops = switch (state) {
            case CONNECTING -> Poller.CONNECT;
            case HANDSHAKING -> tls.handshakeInterest();
            case OPEN, CLOSING -> (state == State.OPEN && wantsInput() ? Poller.READ : 0) | (pendingOutput() > 0 ? Poller.WRITE : 0);
            case LINGERING -> Poller.READ;
            case CLOSED -> 0;
        };
        registration.interest(ops);
    }

    /**
     * Sets up {@code recv} and {@code send} for the channels whose settings ask for them
     * ({@link Settings#nativeIo}), on the calling thread: a server calls it before its loops take
     * connections, since the set-up (30 to 100 ms) would otherwise block the loop of the first channel.
     * Null when channels can use them, else why not.
     */
    public static String prepareNativeIo() {
        return SocketIo.unavailable();
    }

    /** The socket's reads and writes, for the TLS layer. */
    SocketIo io() {
        return io;
    }

    Settings settings() {
        return settings;
    }

    // ---- the one timer ---------------------------------------------------------------------------

    private long effectiveDeadline() {
        return switch (state) {
            case HANDSHAKING -> tls.handshakeDeadline();
            case LINGERING -> lingering.deadline();
            case CLOSED -> NONE;
            case CLOSING -> writeStallDeadline();
            case CONNECTING, OPEN -> {
                long stall = writeStallDeadline();
                yield stall != NONE ? stall : deadline;
            }
        };
    }

    /** While output waits: when it counts as stalled. A closing channel is bounded even without a stall timeout (by the drain time). */
    private long writeStallDeadline() {
        long stall = settings.writeStallTimeout().toNanos();
        if (stall == 0 && state == State.CLOSING) stall = settings.lingerDrain().toNanos();
        return lastWriteProgress == NONE || stall == 0 ? NONE : lastWriteProgress + stall;
    }

    /** Makes sure the timer fires by {@code at}; a later deadline needs nothing: the timer re-arms when it fires. */
    private void armTimer(long at) {
        if (at == NONE || state == State.CLOSED) return;
        if (timer != null) {
            if (timer.deadlineNanos() - at <= 0) return;
            timer.cancel();
        }
        timer = loop.scheduleAt(at, this::onTimer);
    }

    private void onTimer() {
        timer = null;
        if (state == State.CLOSED) return;
        long at = effectiveDeadline();
        if (at == NONE) return;
        if (loop.nanoTime() - at < 0) {
            armTimer(at);
            return;
        }
        switch (state) {
            case HANDSHAKING -> tls.fail("timeout", new SocketTimeoutException(
                    "TLS handshake not finished within " + settings.handshakeTimeout().toMillis() + " ms"));
            case LINGERING -> close();
            case CLOSING -> closeWith(stalled());
            case CONNECTING, OPEN -> {
                if (at != deadline) {
                    closeWith(stalled());
                    return;
                }
                deadline = NONE;
                protocol.onDeadline(this);
                flush();
            }
            case CLOSED -> { }
        }
    }

    private SocketTimeoutException stalled() {
        LOG.debug("write_stalled", "protocol", protocol);
        settings.observer().onWriteStalled();
        return new SocketTimeoutException("queued output made no progress in time");
    }

    @Override
    public String toString() {
        return "channel (" + state + ", " + protocol + ")";
    }
}
