package keel.lab.scenario;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Many connections at once, each sending one request and reading its answer, then closing in one of
 * three ways. Lost answers and client-side resets are counted; request→answer and answer→EOF are
 * timed per connection.
 */
final class HttpCloseStorm {
    /** How a connection ends. */
    enum Variant {
        CLIENT_CLOSES("client closes after the answer (keep-alive)"),
        SERVER_CLOSES("server closes (Connection: close), client reads to EOF"),
        UNREAD_INPUT("Connection: close with 16 KiB the server never reads");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /** One connection's outcome; times in ms, NaN where they do not apply. */
    record Outcome(boolean answered, boolean reset, double answerMs, double eofMs) {
    }

    private static final byte[] UNREAD = new byte[16 * 1024];

    private HttpCloseStorm() {
    }

    /** Opens {@code connections} connections at once against {@code port}; blocks until all ended (30 s socket timeout). */
    static List<Outcome> run(int port, int connections, Variant variant) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        List<Outcome> outcomes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            threads.add(Thread.ofVirtual().name("lab-close-", i).start(() -> {
                Outcome outcome = one(port, variant, go);
                synchronized (outcomes) {
                    outcomes.add(outcome);
                }
            }));
        }
        go.countDown();
        for (Thread thread : threads) thread.join();
        return outcomes;
    }

    private static Outcome one(int port, Variant variant, CountDownLatch go) {
        boolean answered = false;
        double answerMs = Double.NaN;
        try (Socket socket = new Socket()) {
            go.await();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            String connection = variant == Variant.CLIENT_CLOSES ? "keep-alive" : "close";
            byte[] request = ("GET /benchmark/hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: " + connection + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            long sent = System.nanoTime();
            socket.getOutputStream().write(request);
            if (variant == Variant.UNREAD_INPUT) socket.getOutputStream().write(UNREAD);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            answered = readAnswer(in);
            long answeredAt = System.nanoTime();
            answerMs = (answeredAt - sent) / 1e6;
            if (!answered || variant == Variant.CLIENT_CLOSES) return new Outcome(answered, false, answerMs, Double.NaN);
            while (in.read() >= 0) {
                // the server sends nothing after the answer: this waits for its FIN
            }
            return new Outcome(true, false, answerMs, (System.nanoTime() - answeredAt) / 1e6);
        } catch (SocketException e) {
            return new Outcome(answered, true, answerMs, Double.NaN);
        } catch (IOException e) {
            return new Outcome(answered, false, answerMs, Double.NaN);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(false, false, Double.NaN, Double.NaN);
        }
    }

    /** Reads one answer's head and its Content-Length body; true when it was complete and a 200. */
    private static boolean readAnswer(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) return false;
            head.write(b);
            if (head.size() > 16 * 1024) return false;
            byte[] h = head.toByteArray();
            int n = h.length;
            if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') break;
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        long length = 0;
        for (String line : text.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) length = Long.parseLong(line.substring(15).trim());
        }
        for (long i = 0; i < length; i++) if (in.read() < 0) return false;
        return OneShot.status(text) == 200;
    }
}
