package keel.http.codec;

import keel.http.Headers;

import java.util.Arrays;

/**
 * The last request head a connection sent, kept so that the next one reads faster: a keep-alive
 * client sends most of its lines again byte for byte (its request line when it polls one resource,
 * and {@code Host}, {@code User-Agent}, {@code Accept}, {@code Cookie} on every request). A line equal
 * to the line at the same place in the last head gives back what was read from it then: the same
 * strings, checked then, with no pass over its bytes and no allocation. A head whose field lines all
 * came again gives back the same {@link Headers} (immutable, so requests may share it), and with
 * them the framing they were found to have.
 *
 * <p>Only the places are compared, never searched: a line that moved is read anew. A head of more
 * than {@link #MAX_BYTES} bytes or {@link #MAX_LINES} lines is read in full and not kept. One per
 * parser from its connection's second head on (a connection's first head is not kept: most send no
 * other), used on its connection's thread, made empty: its arrays come with the first head it reads
 * and grow with longer ones. It holds the last head's bytes, its strings and {@link Headers}, and
 * about 150 bytes of arrays for a head of up to 4 lines (about 0.5 KiB in all for the head
 * {@code bench/throughput.sh} sends), until its parser drops it when the connection stays quiet
 * ({@link Http1Parser#trim}). After a head that fails to read, the parser reads no more.
 */
final class LastHead {
    /** Heads larger than this are not kept. */
    static final int MAX_BYTES = 4096;
    /** Lines of a head kept: the request line and {@code MAX_LINES - 1} field lines. */
    static final int MAX_LINES = 32;
    /** Lines the arrays hold at first: they grow with longer heads, up to {@link #MAX_LINES}. */
    private static final int FIRST_LINES = 4;

    /** The kept head's bytes, {@code [0, length)}; line {@code i} is {@code [starts[i], starts[i + 1])}, its LF included. */
    private byte[] bytes = new byte[0];
    private int[] starts = new int[0];
    /** Lines kept: 0 when nothing is. */
    private int lines;

    /** What the kept request line read as. */
    private String method;
    private String target;
    private boolean http11;
    /** What each kept field line read as, at its line's place (index 0 unused: the request line). */
    private String[] names = new String[0];
    private String[] values = new String[0];
    private Headers headers;

    /** The framing of the kept head's fields, and what it was worked out for; null before. */
    private Framing framing;
    private boolean framedHttp11;
    private long framedMaxBodySize;

    /** The head being read: its line starts as they are found, and whether every line so far came again. */
    private int[] reading = new int[0];
    private int readingLines;
    private boolean allRepeated;

    /** Starts a head at {@code a[start]}; then {@link #repeated} for each of its lines, and {@link #end}. */
    void begin(int start) {
        readingLines = 0;
        allRepeated = true;
        room(0);
        reading[0] = start;
    }

    /**
     * Takes the line at {@code a[start]} (the request line, then each field line) as the head's next.
     * When it is the line kept at its place (which holds one LF, its last byte), byte for byte,
     * returns the index past its LF, and {@link #method()}, {@link #target()} and {@link #http11()},
     * or {@link #name()} and {@link #value()}, are what it read as. Otherwise -1: the caller reads the
     * line and gives its reading to {@link #requestLineRead} or {@link #fieldRead}.
     */
    int repeated(byte[] a, int start, int end) {
        int place = readingLines++;
        room(place);
        if (place < MAX_LINES) reading[place] = start;
        if (place < lines) {
            int from = starts[place];
            int next = start + starts[place + 1] - from;
            if (next <= end && Arrays.equals(a, start, next, bytes, from, starts[place + 1])) {
                reading[place + 1] = next;
                return next;
            }
        }
        allRepeated = false;
        return -1;
    }

    void requestLineRead(String readMethod, String readTarget, boolean readHttp11, int next) {
        method = readMethod;
        target = readTarget;
        http11 = readHttp11;
        lineRead(next);
    }

    String method() {
        return method;
    }

    String target() {
        return target;
    }

    boolean http11() {
        return http11;
    }

    /** The name of the field line just repeated. */
    String name() {
        return names[readingLines - 1];
    }

    /** The value of the field line just repeated. */
    String value() {
        return values[readingLines - 1];
    }

    /** What the field line just read anew read as, and the index past its LF. */
    void fieldRead(String name, String value, int next) {
        int place = readingLines - 1;
        if (place < names.length) {
            names[place] = name;
            values[place] = value;
        }
        lineRead(next);
    }

    /**
     * The head ends at {@code a[end]} with these fields: the kept {@link Headers} when every line came
     * again, else {@code fields} built; a head that differed is kept in place of the last one.
     */
    Headers end(byte[] a, int end, Headers.Builder fields) {
        if (allRepeated && readingLines == lines && headers != null) return headers;
        Headers read = fields.build();
        int length = end - reading[0];
        if (readingLines > MAX_LINES || length > MAX_BYTES) {
            lines = 0;
            headers = null;
            framing = null;
            return read;
        }
        if (bytes.length < length) bytes = new byte[Math.max(length, Math.min(MAX_BYTES, bytes.length * 2))];
        System.arraycopy(a, reading[0], bytes, 0, length);
        int base = reading[0];
        for (int i = 0; i <= readingLines; i++) reading[i] -= base; // the last: the end of the last line
        int[] kept = starts;
        starts = reading;
        reading = kept;
        lines = readingLines;
        headers = read;
        framing = null;
        return read;
    }

    /**
     * The framing worked out before for these very {@code headers} (the kept ones, given back by
     * {@link #end}) of a request of this version under this body limit, or null.
     */
    Framing framing(Headers fields, boolean http11, long maxBodySize) {
        return framing != null && fields == headers && http11 == framedHttp11 && maxBodySize == framedMaxBodySize ? framing : null;
    }

    /** Keeps {@code worked} as the framing of {@code fields} when they are the kept head's. */
    void framed(Headers fields, boolean http11, long maxBodySize, Framing worked) {
        if (fields != headers) return;
        framing = worked;
        framedHttp11 = http11;
        framedMaxBodySize = maxBodySize;
    }

    /** The end of the line just read anew: the index past its LF. */
    private void lineRead(int next) {
        reading[Math.min(readingLines, MAX_LINES)] = next;
    }

    /** Makes room for the line at {@code place} (at most {@link #MAX_LINES}: past it, lines are not kept). */
    private void room(int place) {
        if (place < names.length || names.length == MAX_LINES) return;
        int size = Math.min(MAX_LINES, Math.max(FIRST_LINES, names.length * 2));
        names = Arrays.copyOf(names, size);
        values = Arrays.copyOf(values, size);
        starts = Arrays.copyOf(starts, size + 1);
        reading = Arrays.copyOf(reading, size + 1);
    }
}
