import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The load of bench/overload.sh, on plain non-blocking sockets (JDK only, one thread, one selector),
 * so that it records what wrk cannot: the latency of each answer by its status.
 *
 * <p>{@code load}: opens {@code --connections} keep-alive connections, then sends {@code --rate}
 * GETs a second for {@code --duration} seconds, open loop: each millisecond it sends what the
 * schedule says is due, on the connection idle the longest, whatever the answers do. A request due
 * while every connection waits for an answer is counted {@code unsent} (the server holds them all).
 * The first {@code --warmup} seconds are sent but not counted. It reports its own longest pause
 * between two turns of its loop (a pause delays the answers it reads). Every second it appends a line to
 * {@code --series}: answers by status and the resident set of process {@code --rss-pid} (the server),
 * whose CPU use over the measured seconds it reports too ({@code --clk-tck}: its clock ticks a second).
 *
 * <p>{@code idle}: opens {@code --connections} connections, each sends one GET and waits for its
 * answer, then holds them all idle and prints {@code ready ...}; once file {@code --go} exists it
 * sends one more GET on each and prints how many were answered.
 *
 * <p>Both print {@code key=value} results on one line. A request unanswered after
 * {@code --timeout-ms} counts as a timeout; a connection refused, reset or closed by the server
 * as an error, and it is opened again.
 */
public final class OverloadDriver {
    private final InetSocketAddress address;
    private final byte[] request;
    private final long timeoutNs;
    private final long clockTicks;
    private final Selector selector = Selector.open();
    private final Map<String, Long> counts = new HashMap<>();
    /** The first failure's exception and message, for the result line. */
    private String firstError;

    private OverloadDriver(Map<String, String> o) throws IOException {
        address = new InetSocketAddress(o.getOrDefault("host", "127.0.0.1"), Integer.parseInt(o.get("port")));
        request = ("GET " + o.get("path") + " HTTP/1.1\r\nHost: " + address.getHostString() + ":" + address.getPort()
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        timeoutNs = Long.parseLong(o.getOrDefault("timeout-ms", "5000")) * 1_000_000L;
        clockTicks = Long.parseLong(o.getOrDefault("clk-tck", "100"));
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !(args[0].equals("load") || args[0].equals("idle"))) {
            System.err.println("usage: OverloadDriver load|idle --port N --path /p [--connections N] [--rate N]"
                    + " [--duration s] [--warmup s] [--timeout-ms N] [--rss-pid PID] [--clk-tck N] [--series FILE] [--go FILE]");
            System.exit(2);
        }
        Map<String, String> o = new HashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        OverloadDriver driver = new OverloadDriver(o);
        int connections = Integer.parseInt(o.getOrDefault("connections", "1000"));
        String result = args[0].equals("load")
                ? driver.load(connections, Integer.parseInt(o.get("rate")), Long.parseLong(o.getOrDefault("duration", "60")),
                        Long.parseLong(o.getOrDefault("warmup", "5")), o.get("rss-pid"), o.get("series"))
                : driver.idle(connections, Integer.parseInt(o.getOrDefault("batch", "500")), Path.of(o.get("go")));
        System.out.println(result);
    }

    // ---- one connection --------------------------------------------------------------------------

    /** A connection and the exchange on it: {@code sentAt} is 0 while no request waits for its answer. */
    private final class Conn {
        final SocketChannel socket;
        final SelectionKey key;
        final ByteBuffer in = ByteBuffer.allocate(1024);
        long sentAt;
        boolean connected;
        boolean counted;  // its answer counts (sent after the warm-up)

        Conn() throws IOException {
            socket = SocketChannel.open();
            socket.configureBlocking(false);
            socket.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
            connected = socket.connect(address);
            key = socket.register(selector, connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, this);
        }

        void send(long now, boolean count) throws IOException {
            sentAt = now;
            counted = count;
            if (socket.write(ByteBuffer.wrap(request)) != request.length) throw new IOException("short write");
        }

        /** The status of the complete answer in {@code in}, -1 while it is incomplete. */
        int answer() throws IOException {
            int end = headEnd();
            if (end < 0) {
                if (!in.hasRemaining()) throw new IOException("response head over " + in.capacity() + " bytes");
                return -1;
            }
            String head = new String(in.array(), 0, end, StandardCharsets.US_ASCII);
            int length = 0;
            for (String line : head.split("\r\n")) {
                if (line.regionMatches(true, 0, "content-length:", 0, 15)) length = Integer.parseInt(line.substring(15).trim());
            }
            if (in.position() < end + 4 + length) return -1;
            if (in.position() > end + 4 + length) throw new IOException("bytes after the answer");
            in.clear();
            sentAt = 0;
            return Integer.parseInt(head.substring(9, 12));
        }

        private int headEnd() {
            byte[] b = in.array();
            for (int i = 3; i < in.position(); i++) {
                if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') return i - 3;
            }
            return -1;
        }

        void close() {
            sentAt = 0;
            key.cancel();
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void count(String what) {
        counts.merge(what, 1L, Long::sum);
    }

    private void failed(String what, Exception e) {
        count(what);
        if (firstError == null) firstError = (e.getClass().getSimpleName() + ":" + e.getMessage()).replace(' ', '_');
    }

    private long count(String what, long dflt) {
        return counts.getOrDefault(what, dflt);
    }

    private static final int NOTHING = -1, FAILED = -2, CONNECTED = -3;

    /**
     * Finishes a connect or reads: the status of an answer that completed, else NOTHING, CONNECTED,
     * or FAILED (counted, unless it lost a warm-up request, and the connection closed).
     */
    private int onReady(Conn c) {
        try {
            if (c.key.isConnectable()) {
                c.socket.finishConnect();
                c.connected = true;
                c.key.interestOps(SelectionKey.OP_READ);
                return CONNECTED;
            }
            int n = c.socket.read(c.in);
            if (n < 0) throw new IOException("closed by the server");
            return c.answer();
        } catch (IOException | RuntimeException e) {
            if (!c.connected) failed("connect_errors", e);
            else if (c.sentAt == 0) failed("closed_idle", e);
            else if (c.counted) failed("errors", e);
            c.close();
            return FAILED;
        }
    }

    // ---- load ------------------------------------------------------------------------------------

    private String load(int connections, int rate, long duration, long warmup, String rssPid, String series)
            throws Exception {
        Conn[] all = new Conn[connections];
        for (int i = 0; i < connections; i++) all[i] = new Conn();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (Arrays.stream(all).anyMatch(c -> !c.connected) && System.nanoTime() < deadline) {
            selector.select(10);
            for (SelectionKey k : selector.selectedKeys()) {
                Conn c = (Conn) k.attachment();
                if (onReady(c) == FAILED) all[indexOf(all, c)] = new Conn();
            }
            selector.selectedKeys().clear();
        }
        ArrayDeque<Conn> idle = new ArrayDeque<>();
        for (Conn c : all) if (c.connected) idle.add(c);
        if (idle.size() < connections) return "error=only " + idle.size() + " of " + connections + " connections opened";
        long connectRetries = count("connect_errors", 0);
        counts.clear();
        firstError = null;

        Latencies ok = new Latencies(), shed = new Latencies(), other = new Latencies();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        PrintWriter out = series == null ? null : new PrintWriter(Files.newBufferedWriter(Path.of(series)));
        if (out != null) out.println("second\tanswered_200\tanswered_503\tanswered_other\terrors\tp99_503_ms\tdriver_max_pause_ms\trss_kib");
        Latencies shedThisSecond = new Latencies();
        long start = System.nanoTime(), measureFrom = start + warmup * 1_000_000_000L;
        long end = measureFrom + duration * 1_000_000_000L, stop = end + timeoutNs;
        long sent = 0, unsent = 0, measuredSent = 0, cpuFrom = -1, lastTick = start, maxGap = 0, nextSecond = start;
        long rssStart = -1, rssMax = -1, rssEnd = -1, second = 0, lastTimeoutScan = start;
        long[] perSecond = new long[4];
        long serverTicksFrom = -1, gapThisSecond = 0;
        while (true) {
            long now = System.nanoTime();
            if (now >= stop || (now >= end && idle.size() == connections)) break;
            if (now >= measureFrom) maxGap = Math.max(maxGap, now - lastTick);
            gapThisSecond = Math.max(gapThisSecond, now - lastTick);
            lastTick = now;
            if (cpuFrom < 0 && now >= measureFrom) {
                cpuFrom = os.getProcessCpuTime();
                serverTicksFrom = cpuTicks(rssPid);
            }
            if (now < end) {
                long due = (now - start) * rate / 1_000_000_000L;
                for (; sent < due; sent++) {
                    boolean measured = now >= measureFrom;
                    Conn c = idle.pollFirst();
                    if (c == null) {
                        if (measured) unsent += due - sent;
                        sent = due;
                        break;
                    }
                    if (measured) measuredSent++;
                    try {
                        c.send(now, measured);
                    } catch (IOException e) {
                        if (measured) failed("errors", e);
                        c.close();
                        Conn fresh = replace(all, c);
                        if (fresh != null && fresh.connected) idle.add(fresh);
                    }
                }
            }
            selector.select(1);
            long at = System.nanoTime();
            for (SelectionKey k : selector.selectedKeys()) {
                Conn c = (Conn) k.attachment();
                long sentAt = c.sentAt;
                int status = onReady(c);
                if (status == FAILED) {
                    if (sentAt == 0) idle.remove(c);
                    perSecond[3]++;
                    Conn fresh = replace(all, c);
                    if (fresh != null && fresh.connected) idle.add(fresh);
                    continue;
                }
                if (status == CONNECTED) idle.add(c); // a connection opened again
                if (status < 0) continue;
                idle.add(c);
                Latencies l = status == 200 ? ok : status == 503 ? shed : other;
                perSecond[status == 200 ? 0 : status == 503 ? 1 : 2]++;
                if (c.counted) l.add(at - sentAt);
                if (status == 503) shedThisSecond.add(at - sentAt);
            }
            selector.selectedKeys().clear();
            if (at - lastTimeoutScan > 50_000_000L) {
                lastTimeoutScan = at;
                for (Conn c : all) {
                    if (c.sentAt != 0 && at - c.sentAt > timeoutNs) {
                        if (c.counted) count("timeouts");
                        c.close();
                        Conn fresh = replace(all, c);
                        if (fresh != null && fresh.connected) idle.add(fresh);
                    }
                }
            }
            if (at >= nextSecond) {
                long rss = rssKib(rssPid);
                if (at >= measureFrom && at < end + 1_000_000_000L) {
                    if (rssStart < 0) rssStart = rss;
                    rssMax = Math.max(rssMax, rss);
                    rssEnd = rss;
                }
                if (out != null) {
                    out.printf("%d\t%d\t%d\t%d\t%d\t%s\t%.1f\t%d%n", second, perSecond[0], perSecond[1], perSecond[2], perSecond[3],
                            shedThisSecond.ms(0.99), gapThisSecond / 1e6, rss);
                }
                gapThisSecond = 0;
                shedThisSecond.clear();
                Arrays.fill(perSecond, 0);
                second++;
                nextSecond += 1_000_000_000L;
            }
        }
        long wall = Math.min(System.nanoTime(), stop) - measureFrom;
        double cpuPct = 100.0 * (os.getProcessCpuTime() - cpuFrom) / wall;
        double serverCpuPct = serverTicksFrom < 0 ? -1 : 100.0 * (cpuTicks(rssPid) - serverTicksFrom) * 1e9 / clockTicks / wall;
        for (Conn c : all) {
            if (c.sentAt != 0 && c.counted) count("timeouts"); // still unanswered at the end
        }
        reset(all);
        if (out != null) out.close();
        return "offered=" + (measuredSent + unsent) + " sent=" + measuredSent + " unsent=" + unsent
                + " ok=" + ok.size() + " shed=" + shed.size() + " other=" + other.size()
                + " errors=" + count("errors", 0) + " closed_idle=" + count("closed_idle", 0)
                + " connect_errors=" + count("connect_errors", 0) + " connect_retries_at_start=" + connectRetries
                + " timeouts=" + count("timeouts", 0) + " ok_p50=" + ok.ms(0.50) + " ok_p99=" + ok.ms(0.99) + " ok_max=" + ok.ms(1.0)
                + " shed_p50=" + shed.ms(0.50) + " shed_p99=" + shed.ms(0.99) + " shed_max=" + shed.ms(1.0)
                + " rss_start_kib=" + rssStart + " rss_max_kib=" + rssMax + " rss_end_kib=" + rssEnd
                + String.format(" server_cpu_pct=%.0f driver_cpu_pct=%.0f driver_max_gap_ms=%.1f", serverCpuPct, cpuPct, maxGap / 1e6)
                + " first_error=" + firstError;
    }

    /** Replaces connection c (closed) in all with a new one, which the loop adds to the idle ones once connected; null if none opens. */
    private Conn replace(Conn[] all, Conn c) {
        int i = indexOf(all, c);
        try {
            return all[i] = new Conn();
        } catch (IOException e) {
            failed("connect_errors", e);
            return null;
        }
    }

    /**
     * Closes every connection with a reset (SO_LINGER 0), which leaves no TIME_WAIT behind: runs one
     * after the other would otherwise run out of local ports to 127.0.0.1.
     */
    private static void reset(Conn[] all) {
        for (Conn c : all) {
            if (c == null) continue;
            try {
                if (c.socket.isOpen()) c.socket.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException ignored) {
                // closed anyway
            }
            c.close();
        }
    }

    private static int indexOf(Conn[] all, Conn c) {
        for (int i = 0; i < all.length; i++) if (all[i] == c) return i;
        throw new IllegalStateException("unknown connection");
    }

    /** User plus system CPU time of process pid in clock ticks (fields 14 and 15 of /proc/PID/stat), -1 if unknown. */
    private static long cpuTicks(String pid) {
        if (pid == null) return -1;
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long rssKib(String pid) {
        if (pid == null) return -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** Latencies in nanoseconds, kept whole (at most a few million) for exact percentiles. */
    private static final class Latencies {
        private long[] values = new long[1 << 16];
        private int size;

        void add(long ns) {
            if (size == values.length) values = Arrays.copyOf(values, size * 2);
            values[size++] = ns;
        }

        int size() {
            return size;
        }

        void clear() {
            size = 0;
        }

        String ms(double q) {
            if (size == 0) return "-1";
            Arrays.sort(values, 0, size);
            int rank = Math.max(0, (int) Math.ceil(q * size) - 1);
            return String.format("%.2f", values[rank] / 1e6);
        }
    }

    // ---- idle ------------------------------------------------------------------------------------

    private String idle(int connections, int batch, Path go) throws Exception {
        Conn[] all = new Conn[connections];
        long t0 = System.nanoTime();
        long first = round(all, batch, true);
        System.out.println(String.format("ready opened=%d answered=%d seconds=%.1f", connections, first,
                (System.nanoTime() - t0) / 1e9));
        System.out.flush();
        while (!Files.exists(go)) {
            selector.select(100);
            for (SelectionKey k : selector.selectedKeys()) onReady((Conn) k.attachment()); // a close by the server: counted
            selector.selectedKeys().clear();
        }
        long second = round(all, batch, false);
        reset(all);
        return "opened=" + connections + " answered_first=" + first + " answered_after=" + second
                + " closed_idle=" + count("closed_idle", 0) + " errors=" + count("errors", 0)
                + " connect_errors=" + count("connect_errors", 0) + " timeouts=" + count("timeouts", 0)
                + " first_error=" + firstError;
    }

    /**
     * One GET on each connection, at most batch at once, opening them first when open is set; returns
     * the 200s. A connection that fails or times out is left closed (and counted).
     */
    private long round(Conn[] all, int batch, boolean open) throws IOException {
        long answered = 0, lastScan = System.nanoTime();
        int next = 0, inFlight = 0;
        while (next < all.length || inFlight > 0) {
            while (inFlight < batch && next < all.length) {
                int i = next++;
                if (open) {
                    try {
                        all[i] = new Conn();
                    } catch (IOException e) {
                        failed("connect_errors", e);
                        continue;
                    }
                }
                Conn c = all[i];
                if (c == null || !c.socket.isOpen()) continue;
                inFlight++;
                if (c.connected) sendOrCount(c);
            }
            selector.select(10);
            long now = System.nanoTime();
            for (SelectionKey k : selector.selectedKeys()) {
                Conn c = (Conn) k.attachment();
                boolean waiting = c.connected && c.sentAt != 0;
                int status = onReady(c);
                if (status == FAILED) {
                    if (waiting || !c.connected) inFlight--;
                } else if (status >= 0) {
                    inFlight--;
                    if (status == 200) answered++;
                    else count("status_" + status);
                } else if (status == CONNECTED) {
                    sendOrCount(c);
                    if (!c.socket.isOpen()) inFlight--;
                }
            }
            selector.selectedKeys().clear();
            if (now - lastScan > 100_000_000L) {
                lastScan = now;
                for (Conn c : all) {
                    if (c != null && c.sentAt != 0 && now - c.sentAt > timeoutNs) {
                        count("timeouts");
                        c.close();
                        c.sentAt = 0;
                        inFlight--;
                    }
                }
            }
        }
        return answered;
    }

    private void sendOrCount(Conn c) {
        try {
            c.send(System.nanoTime(), true);
        } catch (IOException e) {
            failed("errors", e);
            c.close();
        }
    }
}
