package keel.core.net;

import keel.core.buffer.BufferPool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The second half of a lingering close. After {@code shutdownOutput()} (the peer gets a FIN after
 * the last byte sent), read and drop the peer's input until it closes too, or until the byte bound
 * runs out. The caller also bounds this in time. A socket closed with unread input sends an RST,
 * and the RST can destroy data that the peer has not read yet.
 * One per closing connection, confined to its thread.
 */
public final class LingeringDrain {
    /** Input a lingering close reads and drops before it gives up waiting for the peer's FIN. */
    public static final long MAX_DRAIN_BYTES = 1 << 20;

    private long drained;

    /** Shuts down output; the drain starts. */
    public static LingeringDrain start(SocketChannel channel) throws IOException {
        channel.shutdownOutput();
        return new LingeringDrain();
    }

    /** Reads what is there into a pooled scratch buffer and drops it; true when the channel can be closed now. */
    public boolean drain(SocketChannel channel, BufferPool buffers) throws IOException {
        ByteBuffer scratch = buffers.acquire();
        try {
            int n;
            while ((n = channel.read(scratch.clear())) > 0) {
                drained += n;
                if (drained > MAX_DRAIN_BYTES) return true;
            }
            return n < 0;
        } finally {
            buffers.release(scratch);
        }
    }
}
