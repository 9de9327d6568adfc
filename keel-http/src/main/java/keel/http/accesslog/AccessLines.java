package keel.http.accesslog;

import keel.core.log.LogFormat;
import keel.core.loop.EventLoop;
import keel.http.Execution;

import java.util.concurrent.RejectedExecutionException;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * Where the access lines of one thread are encoded, on that thread, and handed to the {@link AccessLog}
 * as blocks: one per event loop, whose lines go as one block at the end of the loop's turn (a task the
 * first line of the turn queues) or when the block is full; one per connection of the blocking
 * transport, whose lines go one by one. A line costs no object of its own: its constant parts, its
 * execution and loop are bytes made once, its time is formatted once a millisecond ({@link LineClock})
 * and its numbers are written as digits. Confined to its thread.
 */
public final class AccessLines {
    /** A loop's block: its lines go to the log once it is this full, whatever the turn. */
    private static final int LOOP_BLOCK = 64 * 1024;
    /**
     * Blocks the writer gives back to a loop, for its next ones: up to 2 MiB held once a burst has
     * filled them, about the lines of the writer's 10 ms gathering at a million lines a second (with
     * fewer, a busy loop allocates a new block for every one it hands over).
     */
    private static final int LOOP_SPARES = 32;
    private static final int BLOCKING_LINE = 512;
    /** Room for a line without its method, target, request id and tail. */
    private static final int LINE_ROOM = 384;
    /** Where a handler ran, as {@link AccessRecorder} numbers it: the executions in order, then the blocking transport. */
    static final int BLOCKING = Execution.values().length;

    private static final String TEXT_HEAD = "time=%s event=access request_id=";
    private static final String JSON_HEAD = "{\"time\":\"%s\",\"level\":\"INFO\",\"logger\":\"keel.access\",\"event\":\"access\",\"request_id\":";
    private static final byte[] TEXT_METHOD = bytes(" method=");
    private static final byte[] TEXT_TARGET = bytes(" target=");
    private static final byte[] TEXT_BYTES_OUT = bytes(" bytes_out=");
    private static final byte[] TEXT_DURATION = bytes(" duration_us=");
    private static final byte[] JSON_METHOD = bytes(",\"method\":");
    private static final byte[] JSON_TARGET = bytes(",\"target\":");
    private static final byte[] JSON_BYTES_OUT = bytes(",\"bytes_out\":");
    private static final byte[] JSON_DURATION = bytes(",\"duration_us\":");
    /** Statuses whose part of the line ({@link #statusPart}) is made once. */
    private static final int STATUSES = 600;

    private final AccessLog log;
    private final boolean json;
    /** The loop whose lines these are, or null for a connection of the blocking transport. */
    private final EventLoop loop;
    /** Per execution number: the end of a line, from the execution on (it names the loop, a constant here). */
    private final byte[][] tails;
    private final LineBuffer buffer;
    private final LineClock clock = new LineClock();
    /** The line up to its request id, with the time of the last line in it. */
    private final byte[] head;
    private final int timeAt;
    private final byte[] methodField;
    private final byte[] targetField;
    private final byte[] bytesOutField;
    private final byte[] durationField;
    /** Per status, its part of the line with the names around it ({@code " status=200 bytes_in="}), made at first use. */
    private final byte[][] statusParts = new byte[STATUSES][];
    private final Runnable handOver = this::handOver;
    /** A hand-over task is queued on the loop. */
    private boolean handOverQueued;

    /** The lines of event loop {@code loop}, or with none, of one connection of the blocking transport; its thread only. */
    AccessLines(AccessLog log, LogFormat format, EventLoop loop) {
        this.log = log;
        this.json = format == LogFormat.JSON;
        this.loop = loop;
        this.buffer = loop == null ? new LineBuffer(BLOCKING_LINE, null) : new LineBuffer(LOOP_BLOCK, new EntryRing<>(LOOP_SPARES));
        String head = json ? JSON_HEAD : TEXT_HEAD;
        this.head = bytes(head.replace("%s", "0".repeat(24)));
        this.timeAt = head.indexOf("%s");
        this.methodField = json ? JSON_METHOD : TEXT_METHOD;
        this.targetField = json ? JSON_TARGET : TEXT_TARGET;
        this.bytesOutField = json ? JSON_BYTES_OUT : TEXT_BYTES_OUT;
        this.durationField = json ? JSON_DURATION : TEXT_DURATION;
        this.tails = new byte[BLOCKING + 1][];
        for (Execution execution : Execution.values()) tails[execution.ordinal()] = tail(execution.word(), loop == null ? null : loop.name());
        tails[BLOCKING] = tail("blocking", null);
    }

    private byte[] tail(String execution, String loopName) {
        if (json) {
            return bytes(",\"execution\":\"" + execution + "\",\"loop\":" + (loopName == null ? "null" : keel.core.log.Json.appendString(new StringBuilder(), loopName)) + "}");
        }
        return bytes(" execution=" + execution + " loop=" + (loopName == null ? "-" : loopName));
    }

    /**
     * Encodes one line: {@code givenId} is the client's id, or null for {@code madeId}; {@code execution} is {@link Execution#ordinal()} or {@link #BLOCKING}.
     */
    void add(long endNanos, String givenId, RequestIds.Made madeId, String method, String target, int status, long bytesIn,
             long bytesOut, long durationNanos, int execution) {
        int variable = method.length() + target.length() + (givenId == null ? 0 : givenId.length());
        int room = LINE_ROOM + tails[execution].length + (json ? 6 * variable : variable);
        if (loop != null && !buffer.fits(room)) handOver(); // a full block goes now
        buffer.room(room);
        if (clock.advance(endNanos)) System.arraycopy(clock.text(), 0, head, timeAt, 24);
        buffer.put(head);
        if (json) {
            if (givenId == null) buffer.put('"').put(madeId.bytes(), madeId.length()).put('"');
            else buffer.jsonString(givenId);
            buffer.put(methodField).jsonString(method).put(targetField).jsonString(target);
        } else {
            // Every value is visible ASCII without spaces (the parser and RequestIds see to it): no quoting.
            if (givenId == null) buffer.put(madeId.bytes(), madeId.length());
            else buffer.ascii(givenId);
            buffer.put(methodField).ascii(method).put(targetField).ascii(target);
        }
        buffer.put(statusPart(status)).decimal(bytesIn).put(bytesOutField).decimal(bytesOut)
                .put(durationField).decimal(durationNanos / 1_000);
        buffer.put(tails[execution]);
        buffer.endLine();
        if (loop == null) handOver();
        else if (!handOverQueued) queueHandOver();
    }

    private byte[] statusPart(int status) {
        if (status < 0 || status >= STATUSES) return statusText(status);
        byte[] part = statusParts[status];
        if (part == null) statusParts[status] = part = statusText(status);
        return part;
    }

    private byte[] statusText(int status) {
        return bytes(json ? ",\"status\":" + status + ",\"bytes_in\":" : " status=" + status + " bytes_in=");
    }

    /**
     * When a request that is parsed now began: on a loop, when the loop took up the input that
     * completed it (the loop's own last clock read, at no cost); on the blocking transport, now.
     */
    long startNanos() {
        return loop != null ? loop.lastNanoTime() : System.nanoTime();
    }

    /** The lines of this turn go to the log at its end: the loop runs its tasks after its ready channels. */
    private void queueHandOver() {
        try {
            loop.execute(handOver);
            handOverQueued = true;
        } catch (RejectedExecutionException e) {
            handOver(); // a full task queue or a stopped loop: the lines go now
        }
    }

    /** Hands the lines held to the log. */
    void handOver() {
        handOverQueued = false;
        AccessLog.Lines lines = buffer.take();
        if (lines != null) log.offer(lines);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(US_ASCII);
    }
}
