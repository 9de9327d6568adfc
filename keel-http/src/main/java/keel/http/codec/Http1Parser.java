package keel.http.codec;

import keel.http.Headers;
import keel.http.Methods;
import keel.http.Request;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A resumable HTTP/1.1 request parser (RFC 9112) over a heap buffer. It does no I/O, never blocks and
 * does not allocate per byte: call {@link #parse} with whatever bytes arrived; it consumes what it
 * used and says what it found. One parser serves one connection, request after request.
 *
 * <pre>
 *  HEAD ──(no body)──────────────────────────────► request
 *   │ Content-Length          Transfer-Encoding: chunked
 *   ▼                          ▼
 *  FIXED_BODY ──► request     CHUNKED ──(last chunk, trailers)──► request
 *  any state ──(bad input or a limit)──► FAILED (final)
 * </pre>
 *
 * {@link MessageHead} finds and reads the head; {@link ChunkedDecoder} strips the chunked framing.
 */
public final class Http1Parser {
    /** First allocation for a body; it doubles as bytes arrive, up to the declared length. */
    private static final int INITIAL_BODY_CAPACITY = 16 * 1024;

    /**
     * @param maxHeadSize    request line plus header fields, in bytes (431 past it; 414 for a request line)
     * @param maxHeaderCount header fields per request (431 past it)
     * @param maxBodySize    body bytes (413 past it)
     * @param bodyLimit      the body limit of one request, from its method and target, when it may
     *                       differ from {@code maxBodySize} (a route's own); null: {@code maxBodySize}
     */
    public record Limits(int maxHeadSize, int maxHeaderCount, long maxBodySize, BodyLimit bodyLimit) {
        public Limits {
            if (maxHeadSize < 64) throw new IllegalArgumentException("maxHeadSize must be >= 64: " + maxHeadSize);
            if (maxHeaderCount < 1) throw new IllegalArgumentException("maxHeaderCount must be >= 1");
            if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("maxBodySize must be in 0.." + (Integer.MAX_VALUE - 16));
            }
        }

        public Limits(int maxHeadSize, int maxHeaderCount, long maxBodySize) {
            this(maxHeadSize, maxHeaderCount, maxBodySize, null);
        }

        long maxBodySize(String method, String target) {
            return bodyLimit == null ? maxBodySize : bodyLimit.maxBodySize(method, target);
        }
    }

    /** The largest body a request may have, asked once its head is read (before {@code 100 Continue}). */
    @FunctionalInterface
    public interface BodyLimit {
        /** In 0..2 GiB; {@code target} is the request target (path and query). */
        long maxBodySize(String method, String target);
    }

    private enum State { HEAD, FIXED_BODY, CHUNKED, FAILED }

    private final Limits limits;
    /** What each request of the connection carries: its ends, and the client's certificates over TLS (null for none). */
    private final InetSocketAddress remoteAddress;
    private final InetSocketAddress localAddress;
    private List<X509Certificate> peerCertificates;
    private final Headers.Builder fieldScratch = new Headers.Builder();
    private final Framing.Fields framingFields = new Framing.Fields();
    private final MessageHead head = new MessageHead();
    /**
     * The connection's last head, whose lines that come again in the next one are not read anew; kept
     * from the connection's second head on (null before, and after {@link #trim}): most connections
     * that send one request send no other (health checks, clients that connect per request), and a
     * kept head would be memory and allocation for a next one that never comes.
     */
    private LastHead lastHead;
    /** Whether a head was read on this connection: the next ones are kept. */
    private boolean headRead;
    /** Made at the first chunked body: most connections never send one, and an idle one holds what it made. */
    private ChunkedDecoder chunks;
    private State state = State.HEAD;
    private ParseResult.Failed failure;

    private String method;
    private String target;
    private boolean http11;
    private boolean keepAlive;
    private boolean expectContinue;
    private Headers headers;
    private byte[] body;
    private int bodyLength;
    private int fixedLength;
    /** The body limit of the request being read. */
    private long maxBodySize;

    /** A parser whose requests have no addresses. */
    public Http1Parser(Limits limits) {
        this(limits, null, null);
    }

    /** A parser for the connection from {@code remoteAddress} to {@code localAddress}: each request carries them. */
    public Http1Parser(Limits limits, InetSocketAddress remoteAddress, InetSocketAddress localAddress) {
        this.limits = limits;
        this.remoteAddress = remoteAddress;
        this.localAddress = localAddress;
    }

    /** Once a TLS handshake is done: the chain the client presented (null for none), which each request then carries. */
    public void peerCertificates(List<X509Certificate> chain) {
        this.peerCertificates = chain == null ? null : List.copyOf(chain); // copied once: each request's List.copyOf is then free
    }

    /** True between requests: no byte of the next request has been consumed. */
    public boolean isBetweenRequests() {
        return state == State.HEAD && head.scanned() == 0;
    }

    /**
     * Between requests, drops what only makes the next head read faster (the kept last head, and the
     * strings its fields read as): about 0.5 KiB that an idle connection would hold otherwise. The
     * next head is read in full, and kept again. Does nothing while a request is being received.
     */
    public void trim() {
        if (!isBetweenRequests()) return;
        lastHead = null;
        fieldScratch.clear();
    }

    /** Bytes reserved for the body being received (for tests: it grows with what arrived). */
    int bodyCapacity() {
        return body == null ? 0 : body.length;
    }

    /** True while the head of a request is being received. */
    public boolean isReadingHead() {
        return state == State.HEAD;
    }

    /**
     * Consumes bytes from {@code in} (a heap buffer in read mode) and reports what they completed.
     * After a {@link ParseResult.Failed} the parser stays failed.
     */
    public ParseResult parse(ByteBuffer in) {
        try {
            while (true) {
                ParseResult result = switch (state) {
                    case HEAD -> parseHead(in);
                    case FIXED_BODY -> readFixedBody(in);
                    case CHUNKED -> readChunked(in);
                    case FAILED -> failure;
                };
                if (result != null) return result;
            }
        } catch (BadMessage bad) {
            state = State.FAILED;
            failure = new ParseResult.Failed(bad.status, bad.getMessage());
            return failure;
        }
    }

    // ---- head ---------------------------------------------------------------------------------

    private ParseResult parseHead(ByteBuffer in) {
        byte[] a = in.array();
        int base = in.arrayOffset();
        int start = base + in.position();
        int limit = base + in.limit();
        if (head.scanned() == 0) {
            // RFC 9112 §2.2: ignore empty lines received before the request line.
            while (start < limit && (a[start] == '\n' || a[start] == '\r')) {
                if (a[start] == '\n') start++;
                else if (start + 1 == limit) break; // a CR whose LF has not arrived yet
                else if (a[start + 1] == '\n') start += 2;
                else break;
            }
            in.position(start - base);
            if (start == limit || (a[start] == '\r' && start + 1 == limit)) return ParseResult.NEED_MORE;
            // A method is a token (RFC 9110 §9.1): a first byte that cannot start one (a TLS ClientHello's
            // 0x16, say) is refused now, not after the head-read timeout waiting for a line end.
            if (!Tokens.isTchar(a[start])) throw new BadMessage("not an HTTP request: it does not start with a method");
        }
        int end = head.find(a, start, limit);
        if (end < 0) {
            if (limit - start > limits.maxHeadSize()) throw tooLarge(a, start, limit);
            return ParseResult.NEED_MORE;
        }
        if (end - start > limits.maxHeadSize()) throw tooLarge(a, start, end);
        in.position(end - base);
        readHead(a, start, end);
        return startBody(in);
    }

    private BadMessage tooLarge(byte[] a, int start, int limit) {
        for (int i = start; i < limit && i - start <= limits.maxHeadSize(); i++) {
            if (a[i] == '\n') return new BadMessage(431, "request head larger than " + limits.maxHeadSize() + " bytes");
        }
        return new BadMessage(414, "request line longer than " + limits.maxHeadSize() + " bytes");
    }

    private void readHead(byte[] a, int start, int end) {
        if (lastHead == null && headRead) lastHead = new LastHead();
        headRead = true;
        LastHead last = lastHead;
        int fieldsStart = -1;
        if (last != null) {
            last.begin(start);
            fieldsStart = last.repeated(a, start, end);
        }
        if (fieldsStart >= 0) {
            method = last.method();
            target = last.target();
            http11 = last.http11();
        } else {
            int lineEnd = MessageHead.lineEnd(a, start, end);
            readRequestLine(a, start, MessageHead.contentEnd(a, start, lineEnd));
            fieldsStart = lineEnd + 1;
            if (last != null) last.requestLineRead(method, target, http11, fieldsStart);
        }
        headers = MessageHead.readFields(a, fieldsStart, end, limits.maxHeaderCount(), fieldScratch.clear(), last);
    }

    private void readRequestLine(byte[] a, int start, int end) {
        int firstSpace = Tokens.indexOf(a, start, end, (byte) ' ');
        int secondSpace = firstSpace < 0 ? -1 : Tokens.indexOf(a, firstSpace + 1, end, (byte) ' ');
        if (firstSpace <= start || secondSpace <= firstSpace + 1 || Tokens.indexOf(a, secondSpace + 1, end, (byte) ' ') >= 0) {
            throw new BadMessage("malformed request line");
        }
        method = method(a, start, firstSpace);
        http11 = Tokens.isHttp11(a, secondSpace + 1, end);
        target = target(a, firstSpace + 1, secondSpace);
    }

    private static String method(byte[] a, int start, int end) {
        int length = end - start;
        if (length == 3 && a[start] == 'G' && a[start + 1] == 'E' && a[start + 2] == 'T') return "GET";
        for (int i = 0; i < Methods.count(); i++) {
            String known = Methods.name(i);
            if (known.length() == length && known.charAt(0) == a[start] && Tokens.matches(a, start, known)) return known;
        }
        for (int i = start; i < end; i++) {
            if (!Tokens.isTchar(a[i])) throw new BadMessage("invalid character in method");
        }
        return new String(a, start, end - start, ISO_8859_1);
    }

    private String target(byte[] a, int start, int end) {
        for (int i = start; i < end; i++) {
            byte b = a[i];
            if (b <= ' ' || b == 0x7f) throw new BadMessage("invalid character in request target");
        }
        String text = new String(a, start, end - start, ISO_8859_1);
        if (a[start] == '/') return text;
        if (text.equals("*") && method.equals("OPTIONS")) return text;
        if (method.equals("CONNECT")) return text;
        return absoluteFormPath(text);
    }

    /** RFC 9112 §3.2.2: a server accepts the absolute form and routes on its path. */
    private static String absoluteFormPath(String text) {
        int scheme = text.indexOf("://");
        String lower = scheme < 0 ? "" : text.substring(0, scheme).toLowerCase(java.util.Locale.ROOT);
        if (!lower.equals("http") && !lower.equals("https")) throw new BadMessage("malformed request target");
        int pathStart = text.indexOf('/', scheme + 3);
        int queryStart = text.indexOf('?', scheme + 3);
        if (pathStart < 0 || (queryStart >= 0 && queryStart < pathStart)) {
            return queryStart < 0 ? "/" : "/" + text.substring(queryStart);
        }
        return text.substring(pathStart);
    }

    // ---- framing (RFC 9112 §6) ----------------------------------------------------------------

    private ParseResult startBody(ByteBuffer in) {
        maxBodySize = limits.maxBodySize(method, target);
        Framing framing = lastHead == null ? null : lastHead.framing(headers, http11, maxBodySize);
        if (framing == null) {
            framing = Framing.of(framingFields, headers, http11, maxBodySize);
            if (lastHead != null) lastHead.framed(headers, http11, maxBodySize, framing);
        }
        keepAlive = framing.keepAlive();
        expectContinue = framing.expectContinue();
        if (framing.chunked()) {
            body = new byte[(int) Math.min(1024, maxBodySize)];
            bodyLength = 0;
            if (chunks == null) chunks = new ChunkedDecoder(limits.maxHeadSize());
            chunks.reset();
            state = State.CHUNKED;
        } else if (framing.contentLength() > 0) {
            // Grown as bytes arrive: a client announcing a large body cannot make the server reserve it.
            fixedLength = (int) framing.contentLength();
            body = new byte[Math.min(fixedLength, INITIAL_BODY_CAPACITY)];
            bodyLength = 0;
            state = State.FIXED_BODY;
        } else {
            body = Framing.NO_BODY;
            return complete();
        }
        if (expectContinue && !in.hasRemaining()) {
            expectContinue = false;
            return ParseResult.CONTINUE_EXPECTED;
        }
        return null;
    }

    private ParseResult readFixedBody(ByteBuffer in) {
        int n = Math.min(in.remaining(), fixedLength - bodyLength);
        if (bodyLength + n > body.length) body = Arrays.copyOf(body, Math.min(fixedLength, Math.max(bodyLength + n, body.length * 2)));
        in.get(body, bodyLength, n);
        bodyLength += n;
        return bodyLength == fixedLength ? complete() : ParseResult.NEED_MORE;
    }

    private ParseResult readChunked(ByteBuffer in) {
        int ready = chunks.next(in);
        if (ready == ChunkedDecoder.END) {
            body = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
            return complete();
        }
        long declared = bodyLength + chunks.chunkRemaining();
        if (declared > maxBodySize) {
            throw new BadMessage(413, "request body larger than " + maxBodySize + " bytes");
        }
        if (ready == 0) return ParseResult.NEED_MORE;
        if (declared > body.length) body = Arrays.copyOf(body, (int) Math.max(declared, Math.min(body.length * 2L, maxBodySize)));
        in.get(body, bodyLength, ready);
        bodyLength += ready;
        chunks.consumed(ready);
        return null;
    }

    private ParseResult complete() {
        Request request = new Request(method, target, http11, keepAlive, headers, body, remoteAddress, localAddress, peerCertificates);
        state = State.HEAD;
        method = null;
        target = null;
        headers = null;
        body = null;
        bodyLength = 0;
        return new ParseResult.Parsed(request);
    }
}
