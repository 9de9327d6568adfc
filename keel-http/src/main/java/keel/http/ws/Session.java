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
    record Outgoing(int opcode, byte[] payload, CompletableFuture<Void> done, int wireBytes, boolean counted) {
    }

    private final long id;
    private final Request request;
    private final String subprotocol;
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
    private final AtomicBoolean writable = new AtomicBoolean(true);
    /** Set by the first close, from either side: the session is no longer open. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Set once Keel's own Close is queued: no frame may follow it (RFC 6455 §5.5.1). */
    private volatile boolean sendsClosed;
    /** Completes when the close handshake ends; fails when the connection ends without one. */
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    Session(long id, Request request, String subprotocol, WsConnection connection, EventLoop loop, boolean masked,
            long maxQueued, long highWaterMark, long lowWaterMark) {
        this.id = id;
        this.request = request;
        this.subprotocol = subprotocol;
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
    public CompletionStage<Void> send(String text) {
        return submit(FrameDecoder.TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public CompletionStage<Void> send(byte[] data) {
        return submit(FrameDecoder.BINARY, data);
    }

    @Override
    public CompletionStage<Void> ping(byte[] data) {
        if (data.length > FrameEncoder.MAX_CONTROL_PAYLOAD) throw new IllegalArgumentException("a ping carries at most 125 bytes: " + data.length);
        return submit(FrameDecoder.PING, data);
    }

    @Override
    public CompletionStage<Void> close(int code, String reason) {
        if (!WsClose.isValidOnWire(code)) throw new IllegalArgumentException("not a close code that may be sent: " + code);
        if (closing.compareAndSet(false, true)) {
            sendsClosed = true;
            byte[] payload = FrameEncoder.closePayload(code, reason);
            enqueue(new Outgoing(FrameDecoder.CLOSE, payload, new CompletableFuture<>(), FrameEncoder.frameLength(payload.length, masked), false));
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

    private CompletionStage<Void> submit(int opcode, byte[] payload) {
        if (sendsClosed) return CompletableFuture.failedFuture(new WsClosedException(WsClose.ABNORMAL, "session " + id + " is closing or closed"));
        int wireBytes = FrameEncoder.frameLength(payload.length, masked);
        long before;
        do {
            before = queued.get();
            if (before >= maxQueued) return CompletableFuture.failedFuture(new WsOverflowException(before, maxQueued));
        } while (!queued.compareAndSet(before, before + wireBytes));
        if (before + wireBytes >= highWaterMark && writable.compareAndSet(true, false)) connection.writabilityChanged();
        CompletableFuture<Void> done = new CompletableFuture<>();
        enqueue(new Outgoing(opcode, payload, done, wireBytes, true));
        return done;
    }

    private void enqueue(Outgoing outgoing) {
        outbox.add(outgoing);
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
