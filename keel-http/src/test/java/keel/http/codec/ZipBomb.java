package keel.http.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/** Test gzip bodies: plain ones, and bombs (many MiB of zeros in a few KiB) built without deflating every byte. */
public final class ZipBomb {
    private static final int MIB = 1 << 20;

    private ZipBomb() {
    }

    /**
     * A gzip member of {@code mebibytes} MiB of zeros, about 1 KiB per MiB. One MiB is deflated once
     * with a full flush (which makes its blocks independent of what precedes them) and repeated.
     */
    public static byte[] zeros(int mebibytes) {
        byte[] zeros = new byte[MIB];
        Deflater deflater = new Deflater(9, true);
        try {
            deflater.setInput(zeros);
            byte[] segment = drain(deflater, Deflater.FULL_FLUSH);
            deflater.finish();
            byte[] last = drain(deflater, Deflater.NO_FLUSH);
            CRC32 crc = new CRC32();
            for (int i = 0; i < mebibytes; i++) crc.update(zeros);
            ByteArrayOutputStream out = new ByteArrayOutputStream(segment.length * mebibytes + 64);
            out.writeBytes(new byte[]{0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
            for (int i = 0; i < mebibytes; i++) out.writeBytes(segment);
            out.writeBytes(last);
            writeIntLe(out, crc.getValue());
            writeIntLe(out, (long) mebibytes * MIB);
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    /** {@code bytes} gzip-encoded by the JDK's own encoder. */
    public static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Everything {@code gzip} decodes to, by the JDK's own decoder. */
    public static byte[] gunzip(byte[] gzip) {
        try (InputStream in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Text that compresses well: {@code size} bytes of numbered lines. */
    public static byte[] text(int size) {
        StringBuilder text = new StringBuilder(size + 64);
        for (int line = 0; text.length() < size; line++) text.append("line ").append(line).append(": the quick brown fox\n");
        return text.substring(0, size).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static byte[] drain(Deflater deflater, int flush) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        while (true) {
            int n = deflater.deflate(buffer, 0, buffer.length, flush);
            out.write(buffer, 0, n);
            if (flush == Deflater.NO_FLUSH ? deflater.finished() : n < buffer.length) return out.toByteArray();
        }
    }

    private static void writeIntLe(ByteArrayOutputStream out, long value) {
        for (int i = 0; i < 4; i++) out.write((int) (value >>> (8 * i)) & 0xff);
    }
}
