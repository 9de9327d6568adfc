package keel.http.accesslog;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * An access log sink for tests: hands out the lines the log's writer thread writes as they arrive
 * ({@link #next()}), and, when made {@link #held()}, keeps that thread in its first write until
 * {@link #release()}.
 */
public final class LineSink extends OutputStream {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final CountDownLatch writing = new CountDownLatch(1);
    private final CountDownLatch released;

    private LineSink(boolean held) {
        this.released = new CountDownLatch(held ? 1 : 0);
    }

    public static LineSink open() {
        return new LineSink(false);
    }

    /** A sink whose first write waits for {@link #release()}. */
    public static LineSink held() {
        return new LineSink(true);
    }

    @Override
    public void write(int b) {
        write(new byte[]{(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        writing.countDown();
        try {
            released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] == '\n') {
                lines.add(partial.toString(StandardCharsets.UTF_8));
                partial.reset();
            } else {
                partial.write(bytes[i]);
            }
        }
    }

    /** The next line, waiting up to 5 s for it. */
    public String next() throws InterruptedException {
        String line = lines.poll(5, TimeUnit.SECONDS);
        if (line == null) fail("no access log line within 5 s");
        return line;
    }

    /** Lines written and not yet taken, without waiting. */
    public int waiting() {
        return lines.size();
    }

    /** Waits up to 5 s until the writer is inside its first write. */
    public void awaitWriting() throws InterruptedException {
        if (!writing.await(5, TimeUnit.SECONDS)) fail("the access log's writer never wrote");
    }

    public void release() {
        released.countDown();
    }
}
