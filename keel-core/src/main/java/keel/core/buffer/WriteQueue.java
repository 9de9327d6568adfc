package keel.core.buffer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayDeque;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The bytes a connection still has to send, as a queue of buffers flushed with gathering writes.
 *
 * <p>Small writes (a response head, a short body) are copied into a pooled tail buffer, so many
 * pipelined responses leave in one system call; large bodies are queued as they are, without a copy.
 * Confined to the connection's thread. The queue itself does not refuse bytes: its owner checks
 * {@link #pendingBytes()} against its water marks before it produces more.
 */
public final class WriteQueue {
    /** Bodies at least this large are queued without copying. */
    public static final int COPY_THRESHOLD = 4096;
    private static final int MAX_BUFFERS_PER_WRITE = 64;

    private static final ByteBuffer[] NO_BUFFERS = {};

    private final BufferPool pool;
    /** Buffers in read mode; read-only ones belong to the caller and never return to the pool. Small at first: most connections queue one or two. */
    private final ArrayDeque<ByteBuffer> queued = new ArrayDeque<>(3);
    /** The buffers of one gathering write; made when a write first needs more than one, and as large as writes have needed. */
    private ByteBuffer[] gather = NO_BUFFERS;
    private ByteBuffer tail;
    private long queuedBytes;

    public WriteQueue(BufferPool pool) {
        this.pool = pool;
    }

    public void put(byte b) {
        ensureTail(1).put(b);
    }

    public void put(byte[] bytes) {
        put(bytes, 0, bytes.length);
    }

    public void put(byte[] bytes, int offset, int length) {
        if (length >= COPY_THRESHOLD) {
            append(ByteBuffer.wrap(bytes, offset, length).asReadOnlyBuffer());
            return;
        }
        while (length > 0) {
            ByteBuffer target = ensureTail(1);
            int n = Math.min(length, target.remaining());
            target.put(bytes, offset, n);
            offset += n;
            length -= n;
        }
    }

    /** Writes the chars of an ASCII/ISO-8859-1 text, one byte each. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int) copies exactly that, without allocating
    public void putAscii(CharSequence text) {
        int length = text.length();
        ByteBuffer tailNow = ensureTail(1);
        if (tailNow.hasArray() && tailNow.remaining() >= length) { // the usual case: straight into the tail's array
            byte[] array = tailNow.array();
            int at = tailNow.arrayOffset() + tailNow.position();
            if (text instanceof String string) string.getBytes(0, length, array, at);
            else for (int j = 0; j < length; j++) array[at + j] = (byte) text.charAt(j);
            tailNow.position(tailNow.position() + length);
            return;
        }
        int i = 0;
        while (i < length) {
            ByteBuffer target = ensureTail(1);
            int end = Math.min(length, i + target.remaining());
            for (; i < end; i++) target.put((byte) text.charAt(i));
        }
    }

    public void putDecimal(long value) {
        if (value < 0) throw new IllegalArgumentException("negative: " + value);
        ByteBuffer target = ensureTail(20);
        if (value == 0) {
            target.put((byte) '0');
            return;
        }
        int start = target.position();
        while (value > 0) {
            target.put((byte) ('0' + value % 10));
            value /= 10;
        }
        for (int i = start, j = target.position() - 1; i < j; i++, j--) {
            byte swap = target.get(i);
            target.put(i, target.get(j));
            target.put(j, swap);
        }
    }

    public void putHex(long value) {
        putAscii(Long.toHexString(value));
    }

    /** Queues a buffer as it is (no copy); it must not change until written. */
    public void append(ByteBuffer buffer) {
        sealTail();
        queuedBytes += buffer.remaining();
        queued.addLast(buffer);
    }

    public long pendingBytes() {
        return queuedBytes + (tail == null ? 0 : tail.position());
    }

    public boolean isEmpty() {
        return pendingBytes() == 0;
    }

    /** Writes as much as the channel takes; true when everything was written. */
    public boolean writeTo(GatheringByteChannel channel) throws IOException {
        sealTail();
        while (!queued.isEmpty()) {
            long written;
            if (queued.size() == 1) {
                written = channel.write(queued.peekFirst());
            } else {
                int count = gather();
                try {
                    written = channel.write(gather, 0, count);
                } finally {
                    Arrays.fill(gather, 0, count, null);
                }
            }
            queuedBytes -= written;
            releaseWritten();
            if (written == 0) return false;
        }
        return true;
    }

    /**
     * Encrypts queued bytes into {@code dst} with one {@link SSLEngine#wrap} (at most one TLS record);
     * the bytes it consumed leave the queue.
     */
    public SSLEngineResult wrapInto(SSLEngine engine, ByteBuffer dst) throws SSLException {
        sealTail();
        int count = gather();
        try {
            SSLEngineResult result = engine.wrap(gather, 0, count, dst);
            queuedBytes -= result.bytesConsumed();
            releaseWritten();
            return result;
        } finally {
            Arrays.fill(gather, 0, count, null);
        }
    }

    /** Puts the first queued buffers into {@link #gather}; returns how many. */
    private int gather() {
        int needed = Math.min(queued.size(), MAX_BUFFERS_PER_WRITE);
        if (gather.length < needed) gather = new ByteBuffer[Math.min(MAX_BUFFERS_PER_WRITE, Math.max(needed, 2 * gather.length))];
        int count = 0;
        for (ByteBuffer buffer : queued) {
            gather[count++] = buffer;
            if (count == MAX_BUFFERS_PER_WRITE) break;
        }
        return count;
    }

    /** Writes everything to a blocking stream. */
    public void writeTo(OutputStream out) throws IOException {
        sealTail();
        byte[] copy = null;
        while (!queued.isEmpty()) {
            ByteBuffer buffer = queued.peekFirst();
            if (buffer.hasArray()) {
                out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
                queuedBytes -= buffer.remaining();
                buffer.position(buffer.limit());
            } else {
                if (copy == null) copy = new byte[8192];
                int n = Math.min(copy.length, buffer.remaining());
                buffer.get(copy, 0, n);
                out.write(copy, 0, n);
                queuedBytes -= n;
            }
            releaseWritten();
        }
    }

    /** Drops everything not yet written and returns pooled buffers. */
    public void clear() {
        sealTail();
        while (!queued.isEmpty()) release(queued.pollFirst());
        queuedBytes = 0;
    }

    private void releaseWritten() {
        while (!queued.isEmpty() && !queued.peekFirst().hasRemaining()) release(queued.pollFirst());
    }

    private void release(ByteBuffer buffer) {
        if (!buffer.isReadOnly()) pool.release(buffer);
    }

    private ByteBuffer ensureTail(int room) {
        if (tail != null && tail.remaining() >= room) return tail;
        sealTail();
        tail = pool.acquire();
        return tail;
    }

    private void sealTail() {
        if (tail == null) return;
        if (tail.position() == 0) {
            pool.release(tail);
        } else {
            tail.flip();
            queuedBytes += tail.remaining();
            queued.addLast(tail);
        }
        tail = null;
    }
}
