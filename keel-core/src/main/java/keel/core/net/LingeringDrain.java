package keel.core.net;

import keel.core.buffer.BufferPool;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * The second half of a lingering close. After {@code shutdownOutput()} (the peer gets a FIN after
 * the last byte sent), read and drop the peer's input until it closes too, or until the byte bound
 * or the drain time runs out. A socket closed with unread input sends an RST, and the RST can
 * destroy data that the peer has not read yet.
 * One per closing connection, confined to its thread.
 */
public final class LingeringDrain {
    /** Input a lingering close reads and drops before it gives up waiting for the peer's FIN. */
    public static final long MAX_DRAIN_BYTES = 1 << 20;

    /** When the drain gives up, a time of {@link System#nanoTime}'s clock (or of the caller's loop). */
    private final long deadline;
    private long drained;

    private LingeringDrain(long deadline) {
        this.deadline = deadline;
    }

    /** Shuts down output; the drain starts. The caller's timer ends it at {@code deadline} (a time of its event loop's clock). */
    public static LingeringDrain start(SocketChannel channel, long deadline) throws IOException {
        channel.shutdownOutput();
        return new LingeringDrain(deadline);
    }

    long deadline() {
        return deadline;
    }

    /**
     * The whole drain on a blocking socket, on the calling thread: shuts down {@code output} (a TLS
     * socket sends {@code close_notify} first), then reads {@code tcp}, the socket underneath, into
     * {@code scratch} and drops it until EOF, the byte bound, or {@code timeoutNanos}: what the peer
     * sends now is discarded, so it is not decrypted. The caller closes the sockets afterwards; this
     * method changes {@code tcp}'s read timeout.
     *
     * @return true when the peer closed its side in time, false when the drain time or the byte bound ran out
     */
    public static boolean shutdownAndDrain(Socket output, Socket tcp, byte[] scratch, long timeoutNanos)
            throws IOException {
        output.shutdownOutput();
        InputStream input = tcp.getInputStream();
        LingeringDrain drain = new LingeringDrain(System.nanoTime() + timeoutNanos);
        try {
            while (true) {
                long left = drain.deadline - System.nanoTime();
                if (left <= 0) return false;
                tcp.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                int n = input.read(scratch);
                if (n < 0) return true;
                if (drain.dropped(n)) return false;
            }
        } catch (SocketTimeoutException timeout) {
            return false;
        }
    }

    /** Reads what is there into a pooled scratch buffer and drops it; true when the channel can be closed now. */
    public boolean drain(SocketChannel channel, BufferPool buffers) throws IOException {
        ByteBuffer scratch = buffers.acquire();
        try {
            int n;
            while ((n = channel.read(scratch.clear())) > 0) {
                if (dropped(n)) return true;
            }
            return n < 0;
        } finally {
            buffers.release(scratch);
        }
    }

    /** Counts dropped input; true once it is past the bound. */
    private boolean dropped(int n) {
        drained += n;
        return drained > MAX_DRAIN_BYTES;
    }
}
