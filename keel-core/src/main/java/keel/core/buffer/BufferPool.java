package keel.core.buffer;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A pool of equal-sized heap buffers, confined to one thread (an event loop owns one).
 *
 * <p>Bounded: it keeps at most {@code maxPooled} idle buffers; a buffer released past that is left
 * to the garbage collector, and an empty pool allocates. Users of Keel never see these buffers.
 */
public final class BufferPool {
    private final ArrayDeque<ByteBuffer> idle;
    private final int bufferSize;
    private final int maxPooled;

    public BufferPool(int bufferSize, int maxPooled) {
        if (bufferSize < 1) throw new IllegalArgumentException("bufferSize must be >= 1");
        this.bufferSize = bufferSize;
        this.maxPooled = maxPooled;
        this.idle = new ArrayDeque<>(Math.min(maxPooled, 64));
    }

    /** A cleared buffer of {@link #bufferSize()} bytes. */
    public ByteBuffer acquire() {
        ByteBuffer buffer = idle.pollLast();
        return buffer != null ? buffer : ByteBuffer.allocate(bufferSize);
    }

    /** Gives a buffer back; buffers of another size are ignored. */
    public void release(ByteBuffer buffer) {
        if (buffer.capacity() != bufferSize || idle.size() >= maxPooled) return;
        idle.addLast(buffer.clear());
    }

    /** Allocates idle buffers up to {@code count} (and the bound), so first requests find them ready (warm start). */
    public void prefill(int count) {
        while (idle.size() < Math.min(count, maxPooled)) idle.addLast(ByteBuffer.allocate(bufferSize));
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int idleCount() {
        return idle.size();
    }
}
