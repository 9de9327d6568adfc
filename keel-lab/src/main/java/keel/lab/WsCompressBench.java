package keel.lab;

import keel.http.client.WebSocketClient;
import keel.http.ws.WsListener;
import keel.http.ws.WsOptions;
import keel.http.ws.WsSession;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The load driver of {@code bench/ws-compress.sh}: echoes JSON documents of about {@code size} bytes
 * through {@code /ws/echo} with Keel's {@link WebSocketClient}, offering permessage-deflate (mode
 * {@code deflate}, compressing its own messages at {@code level}) or not ({@code off}). {@value #SESSIONS} sessions keep {@value #WINDOW} messages
 * each in flight; the documents are {@value #DOCUMENTS} different ones (the same fields, other
 * values), sent in turn. The client connects through a {@link CountingRelay}, which counts the bytes
 * on the wire each way. After a warm-up that is not counted it prints one line of {@code key=value}:
 * bytes per message each way, the server's CPU time per message (from {@code /proc/PID/stat} of the
 * given server PID, 0 for none) and messages per second.
 *
 * <pre>java -cp ... keel.lab.WsCompressBench ws://127.0.0.1:28091/ws/echo 4096 20000 deflate 6 12345 100</pre>
 */
public final class WsCompressBench {
    static final int SESSIONS = 4;
    static final int WINDOW = 8;
    static final int DOCUMENTS = 256;
    private static final long TIMEOUT_SECONDS = 120;

    /** What one measured run saw; {@code cpuTicks} is -1 without a server PID. */
    record Result(String mode, String extensions, int documentBytes, long messages, long errors, long upstreamBytes,
                  long downstreamBytes, long cpuTicks, long ticksPerSecond, long wallNanos) {
    }

    private WsCompressBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: WsCompressBench ws://HOST:PORT/ws/echo SIZE MESSAGES deflate|off LEVEL SERVER_PID CLK_TCK");
            System.exit(2);
        }
        URI uri = URI.create(args[0]);
        int size = Integer.parseInt(args[1]);
        int messages = Integer.parseInt(args[2]);
        boolean deflate = switch (args[3]) {
            case "deflate" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("mode must be deflate or off: " + args[3]);
        };
        WsOptions options = WsOptions.defaults().withCompression(deflate).withCompressionLevel(Integer.parseInt(args[4]));
        Result result = run(uri, documents(size, DOCUMENTS), Math.min(messages, 5000), messages, options,
                Long.parseLong(args[5]), Long.parseLong(args[6]));
        System.out.println(report(result));
    }

    /** A warm-up of {@code warmup} messages, then {@code messages} measured ones, on fresh sessions through a fresh relay. */
    static Result run(URI uri, List<String> documents, int warmup, int messages, WsOptions options, long serverPid, long ticksPerSecond)
            throws Exception {
        try (CountingRelay relay = new CountingRelay(new InetSocketAddress(uri.getHost(), uri.getPort()), SESSIONS);
             WebSocketClient client = WebSocketClient.create(options, 1)) {
            URI viaRelay = URI.create("ws://127.0.0.1:" + relay.port() + uri.getRawPath());
            List<Echoer> echoers = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                Echoer echoer = new Echoer(documents, i * documents.size() / SESSIONS);
                echoer.session = client.connect(viaRelay, echoer).get(10, TimeUnit.SECONDS);
                echoers.add(echoer);
            }
            echo(echoers, warmup);
            long up = relay.upstreamBytes();
            long down = relay.downstreamBytes();
            long cpu = cpuTicks(serverPid);
            long start = System.nanoTime();
            long errors = echo(echoers, messages);
            long wall = System.nanoTime() - start;
            long cpuUsed = cpu < 0 ? -1 : cpuTicks(serverPid) - cpu;
            Result result = new Result(options.compression() ? "deflate" : "off", echoers.getFirst().session.extensions(),
                    (int) documents.stream().mapToInt(String::length).average().orElse(0), messages, errors,
                    relay.upstreamBytes() - up, relay.downstreamBytes() - down, cpuUsed, ticksPerSecond, wall);
            for (Echoer echoer : echoers) echoer.session.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return result;
        }
    }

    /** Echoes {@code messages} messages spread over the sessions; returns the errors (wrong or missing echoes). */
    private static long echo(List<Echoer> echoers, int messages) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(echoers.size());
        for (int i = 0; i < echoers.size(); i++) {
            echoers.get(i).start(messages / echoers.size() + (i < messages % echoers.size() ? 1 : 0), done);
        }
        boolean finished = done.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long errors = 0;
        for (Echoer echoer : echoers) errors += echoer.errors(finished);
        return errors;
    }

    /** JSON documents of about {@code size} bytes: a device and its readings, with random values. */
    static List<String> documents(int size, int count) {
        Random random = new Random(7);
        List<String> documents = new ArrayList<>(count);
        for (int d = 0; d < count; d++) {
            StringBuilder json = new StringBuilder(size + 128).append("{\"device\":\"capteur-").append(random.nextInt(1000))
                    .append("\",\"site\":\"Lyon-Part-Dieu\",\"readings\":[");
            for (int i = 0; json.length() < size - 100; i++) {
                json.append(i == 0 ? "" : ",").append("{\"ts\":").append(1_700_000_000_000L + d * 60_000L + i * 1000L + random.nextInt(1000))
                        .append(",\"temperature\":").append(String.format(Locale.ROOT, "%.2f", 15 + random.nextDouble() * 10))
                        .append(",\"humidity\":").append(30 + random.nextInt(50))
                        .append(",\"status\":\"").append(random.nextInt(10) == 0 ? "warn" : "ok").append("\"}");
            }
            documents.add(json.append("]}").toString());
        }
        return documents;
    }

    /** User plus system time of a process in clock ticks (fields 14 and 15 of /proc/PID/stat); -1 for PID 0. */
    static long cpuTicks(long pid) throws IOException {
        if (pid <= 0) return -1;
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    static String report(Result r) {
        double cpuMicros = r.cpuTicks() < 0 ? -1 : r.cpuTicks() * 1e6 / r.ticksPerSecond() / r.messages();
        return String.format(Locale.ROOT, "mode=%s extensions=%s doc_bytes=%d messages=%d errors=%d up_bytes_per_msg=%.1f"
                        + " down_bytes_per_msg=%.1f server_cpu_us_per_msg=%.1f msgs_per_s=%.0f wall_s=%.2f",
                r.mode(), r.extensions().isEmpty() ? "none" : r.extensions().replace(" ", ""), r.documentBytes(), r.messages(), r.errors(),
                (double) r.upstreamBytes() / r.messages(), (double) r.downstreamBytes() / r.messages(), cpuMicros,
                r.messages() * 1e9 / r.wallNanos(), r.wallNanos() / 1e9);
    }

    /**
     * One session: keeps up to {@value #WINDOW} documents in flight and checks each echo against the
     * oldest one sent. Its methods run on the client's loop (echoes) and on the driver's thread
     * (start), hence synchronized.
     */
    private static final class Echoer implements WsListener {
        private final List<String> documents;
        private final ArrayDeque<String> expected = new ArrayDeque<>(WINDOW);
        private WsSession session;
        private int next;
        private int toSend;
        private int toReceive;
        private long errors;
        private CountDownLatch done;

        Echoer(List<String> documents, int first) {
            this.documents = documents;
            this.next = first;
        }

        synchronized void start(int count, CountDownLatch latch) {
            toSend = count;
            toReceive = count;
            done = latch;
            if (count == 0) latch.countDown();
            for (int i = 0; i < WINDOW && toSend > 0; i++) sendNext();
        }

        private void sendNext() {
            String document = documents.get(next++ % documents.size());
            expected.addLast(document);
            toSend--;
            session.send(document);
        }

        @Override
        public synchronized void onText(WsSession s, String text) {
            if (!text.equals(expected.pollFirst())) errors++;
            if (toSend > 0) sendNext();
            if (--toReceive == 0) done.countDown();
        }

        /** Wrong echoes, plus those still missing when the run did not finish. */
        synchronized long errors(boolean finished) {
            long missing = finished ? 0 : toReceive;
            long counted = errors + missing;
            errors = 0;
            expected.clear();
            return counted;
        }
    }
}
