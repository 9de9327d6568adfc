package keel.http.ws;

import keel.core.loop.EventLoop;
import keel.http.Request;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The thread-safe face of a {@link WsConnection}. A send is counted against the bound on the calling
 * thread (so a fast producer sees the bound at once, not after the loop caught up), put in an outbox
 * that keeps call order, and written by the loop: directly when called on it, else by one
 * {@code loop.execute} task per batch.
 */
final class Session implements WsSession {
    /** A frame the application asked for; {@code counted} frames count against the bound. */
    record Outgoing(int opcode, boolean fin, byte[] payload, CompletableFuture<Void> done, int wireBytes, boolean counted) {
    }

    private final long id;
    private final Request request;
    private final String subprotocol;
    private final String extensions;
    private final WsConnection connection;
    private final EventLoop loop;
    private final boolean masked;
    private final long maxQueued;
    private final long highWaterMark;
    private final long lowWaterMark;
    private final ConcurrentLinkedQueue<Outgoing> outbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask;
    private final AtomicLong queued = new AtomicLong();
    /** The opcode of the message being sent in fragments, 0 when none; guarded by the outbox lock. */
    private int fragmentedOpcode;
    private final AtomicBoolean writable = new AtomicBoolean(true);
    /** Set by the first close, from either side: the session is no longer open. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Set once Keel's own Close is queued: no frame may follow it (RFC 6455 §5.5.1). */
    private volatile boolean sendsClosed;
    /** Completes when the close handshake ends; fails when the connection ends without one. */
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Session(long id, Request request, String subprotocol, String extensions, WsConnection connection, EventLoop loop,
            boolean masked, long maxQueued, long highWaterMark, long lowWaterMark) {
        this.id = id;
        this.request = request;
        this.subprotocol = subprotocol;
        this.extensions = extensions;
        this.connection = connection;
        this.loop = loop;
        this.masked = masked;
        this.maxQueued = maxQueued;
        this.highWaterMark = highWaterMark;
        this.lowWaterMark = lowWaterMark;
        this.drainTask = () -> {
            drainScheduled.set(false);
            connection.drainOutbox();
        };
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public Request request() {
        return request;
    }

    @Override
    public String subprotocol() {
        return subprotocol;
    }

    @Override
    public String extensions() {
        return extensions;
    }

    @Override
    public CompletionStage<Void> send(String text) {
        return submit(FrameDecoder.TEXT, text.getBytes(StandardCharsets.UTF_8), false, true);
    }

    @Override
    public CompletionStage<Void> send(byte[] data) {
        return submit(FrameDecoder.BINARY, data, false, true);
    }

    @Override
    public CompletionStage<Void> send(String fragment, boolean last) {
        return submit(FrameDecoder.TEXT, fragment.getBytes(StandardCharsets.UTF_8), true, last);
    }

    @Override
    public CompletionStage<Void> send(byte[] fragment, boolean last) {
        return submit(FrameDecoder.BINARY, fragment, true, last);
    }

    @Override
    public CompletionStage<Void> ping(byte[] data) {
        if (data.length > FrameEncoder.MAX_CONTROL_PAYLOAD) throw new IllegalArgumentException("a ping carries at most 125 bytes: " + data.length);
        return submit(FrameDecoder.PING, data, false, true);
    }

    @Override
    public CompletionStage<Void> close(int code, String reason) {
        if (!WsClose.isValidOnWire(code)) throw new IllegalArgumentException("not a close code that may be sent: " + code);
        if (closing.compareAndSet(false, true)) {
            byte[] payload = FrameEncoder.closePayload(code, reason);
            synchronized (outbox) {
                sendsClosed = true;
                outbox.add(new Outgoing(FrameDecoder.CLOSE, true, payload, new CompletableFuture<>(), FrameEncoder.frameLength(payload.length, masked), false));
            }
            wakeLoop();
        }
        return closed.copy();
    }

    @Override
    public boolean isOpen() {
        return !closing.get();
    }

    @Override
    public boolean isWritable() {
        return writable.get();
    }

    @Override
    public long queuedBytes() {
        return queued.get();
    }

    @Override
    public String toString() {
        return "WsSession " + id + " " + request.path();
    }

    /**
     * A data frame (a whole message, or a fragment of one) or a ping: refused while a message sent in
     * fragments is open (to all but its own fragments and pings), once the session closes, or at the
     * bound; else counted against the bound and appended to the outbox. All of it happens under one
     * lock, so no whole message can slip between two fragments; outside it, the writability change
     * the send may cause, then the loop is woken.
     */
    private CompletionStage<Void> submit(int opcode, byte[] payload, boolean fragment, boolean last) {
        boolean data = opcode != FrameDecoder.PING;
        Outgoing outgoing;
        synchronized (outbox) {
            int open = data ? fragmentedOpcode : 0;
            if (open != 0 && (!fragment || open != opcode)) {
                return CompletableFuture.failedFuture(new IllegalStateException("a " + (open == FrameDecoder.TEXT ? "text" : "binary")
                        + " message sent in fragments is still open: finish it with last = true first"));
            }
            if (sendsClosed) return CompletableFuture.failedFuture(new WsClosedException(WsClose.ABNORMAL, "session " + id + " is closing or closed"));
            long queuedNow = queued.get();
            if (queuedNow >= maxQueued) return CompletableFuture.failedFuture(new WsOverflowException(queuedNow, maxQueued));
            int wireBytes = FrameEncoder.frameLength(payload.length, masked);
            queued.addAndGet(wireBytes);
            outgoing = new Outgoing(open == 0 ? opcode : FrameDecoder.CONTINUATION, last, payload, new CompletableFuture<>(), wireBytes, true);
            outbox.add(outgoing);
            if (data) fragmentedOpcode = last ? 0 : opcode;
        }
        if (queued.get() >= highWaterMark && writable.compareAndSet(true, false)) connection.writabilityChanged();
        wakeLoop();
        return outgoing.done();
    }

    /** Has the loop write the outbox: now when called on it, else by one task per batch. */
    private void wakeLoop() {
        if (loop.inEventLoop()) {
            connection.drainOutbox();
            return;
        }
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                drainScheduled.set(false);
                failOutbox(new WsClosedException(WsClose.ABNORMAL, "event loop refused the send: " + e.getMessage()));
            }
        }
    }

    // ---- loop side -------------------------------------------------------------------------------

    Outgoing pollOutgoing() {
        return outbox.poll();
    }

    /** The peer started the close (or the connection is failing): the session is no longer open. Loop thread. */
    void markClosing() {
        closing.set(true);
    }

    /** Keel's Close is queued (or the connection ends): later sends fail at once. Loop thread. */
    void stopSends() {
        closing.set(true);
        sendsClosed = true;
    }

    /** A frame's last byte reached the socket. Loop thread. */
    void written(Outgoing outgoing) {
        if (outgoing.counted()) {
            long now = queued.addAndGet(-outgoing.wireBytes());
            if (now <= lowWaterMark && writable.compareAndSet(false, true)) connection.writabilityChanged();
        }
        outgoing.done().complete(null);
    }

    void failed(Outgoing outgoing, Throwable cause) {
        if (outgoing.counted()) queued.addAndGet(-outgoing.wireBytes());
        outgoing.done().completeExceptionally(cause);
    }

    void failOutbox(Throwable cause) {
        Outgoing outgoing;
        while ((outgoing = outbox.poll()) != null) failed(outgoing, cause);
    }
}
