package keel.core.net;

import keel.core.buffer.BufferPool;
import keel.core.log.Log;
import keel.core.loop.Poller;
import keel.core.tls.HandshakeFailures;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * TLS between a {@link Channel}'s socket and its protocol, on the JDK's {@link SSLEngine}. Records
 * read wait in {@code netIn} and are opened into the channel's plain-text input; plain text queued by
 * the protocol is sealed into {@code netOut} only as fast as the socket takes it (at most
 * {@link #MAX_SEAL_PER_FLUSH} per flush), so a large response never holds the loop for long, and the
 * water marks count encrypted bytes. The engine's delegated tasks (key exchange, certificate checks)
 * run on a virtual thread while the channel waits for nothing. Loop thread, except those tasks.
 */
final class TlsLayer {
    private static final Log LOG = Log.of(TlsLayer.class);
    /** Room for the largest TLS record (RFC 8446 §5.2: 2^14 + 256; TLS 1.2 allows 2^14 + 2048) and its plain text. */
    static final int BUFFER_SIZE = 20 * 1024;
    private static final int MAX_SEAL_PER_FLUSH = 256 * 1024;
    private static final byte HANDSHAKE_RECORD = 0x16;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final String PLAIN_HTTP_BODY = "this port speaks TLS: use https://\n";
    private static final byte[] PLAIN_HTTP_ANSWER = ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: "
            + PLAIN_HTTP_BODY.length() + "\r\nConnection: close\r\n\r\n" + PLAIN_HTTP_BODY).getBytes(StandardCharsets.ISO_8859_1);

    private final Channel channel;
    private final SSLEngine engine;
    /** Buffers for records ({@code netIn}, {@code netOut}). */
    private final BufferPool pool;
    /** Buffers for the channel's plain-text input. */
    private final BufferPool plainText;
    private ByteBuffer netIn;
    private ByteBuffer netOut;
    private boolean taskRunning;
    private boolean handshakeDone;
    private boolean firstRead = true;
    private boolean inboundDone;
    private boolean outboundClosed;
    /** When the handshake must be done, a time of the loop's clock. */
    private long handshakeDeadline;
    /** Plain text sealed into {@code netOut} and not yet written: it counts as written once its records have left. */
    private long sealedNotSent;

    TlsLayer(Channel channel, SSLEngine engine, Channel.TlsBuffers buffers) {
        this.channel = channel;
        this.engine = engine;
        this.pool = buffers.records();
        this.plainText = buffers.plainText();
    }

    SSLSession session() {
        return engine.getSession();
    }

    // ---- handshake -------------------------------------------------------------------------------

    /** Starts the handshake, which the channel ends as failed at {@code deadline}. */
    void begin(long deadline) throws IOException {
        handshakeDeadline = deadline;
        engine.beginHandshake();
        handshake();
    }

    long handshakeDeadline() {
        return handshakeDeadline;
    }

    /** Moves the handshake on as far as it goes without waiting; opens the channel when it is done. */
    void handshake() throws IOException {
        try {
            while (channel.isHandshaking() && !taskRunning) {
                if (!flushNetOut()) break; // a flight still being written: on OP_WRITE
                if (handshakeDone) {
                    channel.open();
                    return;
                }
                if (!step()) break;
            }
        } catch (IOException e) {
            // The engine's own failure, or the peer gone (a FIN or a reset, often after the client
            // refused the certificate without an alert that arrived): counted alike.
            fail(HandshakeFailures.reason(e), e);
            return;
        }
        if (channel.isHandshaking()) channel.updateInterest();
    }

    /** One handshake step; false when it must wait for the socket or a task. */
    private boolean step() throws IOException {
        HandshakeStatus status = engine.getHandshakeStatus();
        switch (status) {
            case NEED_WRAP -> {
                ensureNetOut();
                SSLEngineResult result = engine.wrap(EMPTY, netOut);
                if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) handshakeDone = true;
                return true;
            }
            case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                SSLEngineResult result = unwrap();
                if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) handshakeDone = true;
                switch (result.getStatus()) {
                    case BUFFER_UNDERFLOW -> {
                        return readForHandshake();
                    }
                    case CLOSED -> throw new EOFException("peer closed during the TLS handshake");
                    // Plain text before the handshake's end that fills the input: no protocol reads it yet.
                    case BUFFER_OVERFLOW -> throw new SSLException("application data overflows the input during the TLS handshake");
                    case OK -> {
                        return true;
                    }
                }
                return true;
            }
            case NEED_TASK -> {
                runTasksOffLoop();
                return false;
            }
            case FINISHED, NOT_HANDSHAKING -> {
                handshakeDone = true;
                return true;
            }
        }
        return false;
    }

    /** Reads handshake records; false when none are there yet. A first record that is not TLS ends here. */
    private boolean readForHandshake() throws IOException {
        ensureNetIn();
        int n = channel.io().read(netIn);
        boolean serverFirstRead = firstRead && !engine.getUseClientMode();
        if (n < 0 && serverFirstRead) {
            channel.close(); // a client closed before its first byte (a TCP health check, say): no handshake failed
            return false;
        }
        if (n < 0) throw new EOFException("peer closed during the TLS handshake");
        if (n == 0) return false;
        channel.settings().observer().onBytesRead(n);
        firstRead = false;
        if (serverFirstRead) {
            if (netIn.get(0) != HANDSHAKE_RECORD) {
                refuseNonTls();
                return false;
            }
        }
        return true;
    }

    /**
     * Not a TLS record: a plain HTTP request (its first byte a letter) gets a clear-text 400 before the
     * lingering close; anything else is closed at once.
     */
    private void refuseNonTls() throws IOException {
        byte first = netIn.get(0);
        boolean plainHttp = first >= 'A' && first <= 'Z';
        channel.settings().observer().onTlsHandshakeFailed(plainHttp ? HandshakeFailures.PLAIN_HTTP : HandshakeFailures.OTHER);
        if (!plainHttp) {
            channel.closeWith(new SSLException("not a TLS record: first byte 0x" + Integer.toHexString(first & 0xff)));
            return;
        }
        LOG.debug("tls_plain_http_refused");
        try {
            channel.io().write(ByteBuffer.wrap(PLAIN_HTTP_ANSWER)); // a fresh socket's send buffer takes it whole
        } catch (IOException e) {
            channel.closeWith(e); // already counted: not a second failure
            return;
        }
        dropOutput();
        channel.closeLingering();
    }

    private void runTasksOffLoop() {
        taskRunning = true;
        channel.updateInterest();
        Thread.ofVirtual().name("keel-tls-task").start(() -> {
            RuntimeException failure = null;
            try {
                Runnable task;
                while ((task = engine.getDelegatedTask()) != null) task.run();
            } catch (RuntimeException e) {
                failure = e;
            }
            RuntimeException failed = failure;
            try {
                channel.loop().execute(() -> afterTasks(failed));
            } catch (RejectedExecutionException stopped) {
                channel.closeFromAnyThread();
            }
        });
    }

    private void afterTasks(RuntimeException failure) {
        taskRunning = false;
        if (channel.isClosed()) return;
        if (failure != null) {
            fail(HandshakeFailures.reason(failure), failure);
            return;
        }
        try {
            handshake();
        } catch (IOException | RuntimeException e) {
            channel.closeWith(e);
        }
    }

    /** Interest while handshaking: nothing while a task runs; write while a flight waits; read otherwise. */
    int handshakeInterest() {
        if (taskRunning) return 0;
        if (netOut != null && netOut.position() > 0) return Poller.WRITE;
        return Poller.READ;
    }

    /**
     * Ends a handshake that failed or stalled, counted with its reason. Only the engine's own failure
     * (an {@link SSLException}) sends the alert it produced; a stall or a peer that went away is
     * closed without one, as the blocking transport does (an alert made up on a timeout would answer
     * a client that may not have sent a ClientHello yet).
     */
    void fail(String reason, Exception cause) {
        if (channel.isClosed()) return;
        LOG.debug("tls_handshake_failed", "reason", reason, "cause", cause);
        channel.settings().observer().onTlsHandshakeFailed(reason);
        if (cause instanceof SSLException) sendAlert();
        channel.closeWith(cause);
    }

    /** Writes the alert the engine produced, best effort: the socket closes next. */
    private void sendAlert() {
        try {
            engine.closeOutbound();
            ensureNetOut();
            engine.wrap(EMPTY, netOut);
            flushNetOut();
        } catch (IOException | RuntimeException ignored) {
            // the connection is failing anyway; the socket closes next
        }
    }

    // ---- reading ---------------------------------------------------------------------------------

    /** Reads records from the socket; -1 at the end of input. Opening them is {@link #decrypt}'s. */
    int read() throws IOException {
        ensureNetIn();
        if (!netIn.hasRemaining()) return 0;
        return channel.io().read(netIn);
    }

    /** Opens buffered records into the channel's input while it has room; true when plain text was added. */
    boolean decrypt() {
        if (netIn == null || netIn.position() == 0 || inboundDone) {
            releaseNetInIfEmpty();
            return false;
        }
        boolean produced = false;
        try {
            while (netIn.position() > 0) {
                ByteBuffer plain = channel.input();
                SSLEngineResult result = unwrapInto(plain);
                produced |= result.bytesProduced() > 0;
                if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                    inboundDone = true;
                    break;
                }
                if (result.getStatus() != SSLEngineResult.Status.OK) break; // underflow: more bytes; overflow: input full
                afterHandshakeMessage(result);
            }
        } catch (SSLException e) {
            LOG.debug("tls_record_failed", "cause", e);
            channel.closeWith(e);
            return false;
        }
        releaseNetInIfEmpty();
        if (!produced) channel.releaseInputIfEmpty();
        return produced;
    }

    /** Room for more records: reading stops while {@code netIn} is full (its records wait for room in the input). */
    boolean canRead() {
        return !inboundDone && (netIn == null || netIn.hasRemaining());
    }

    /**
     * After the handshake, TLS 1.3 still sends session tickets and key updates (handled here); a new
     * handshake on TLS 1.2 is a renegotiation, which Keel refuses.
     */
    private void afterHandshakeMessage(SSLEngineResult result) throws SSLException {
        HandshakeStatus status = result.getHandshakeStatus();
        if (status == HandshakeStatus.NOT_HANDSHAKING || status == HandshakeStatus.FINISHED) return;
        if (!"TLSv1.3".equals(engine.getSession().getProtocol())) {
            channel.settings().observer().onTlsHandshakeFailed(HandshakeFailures.RENEGOTIATION);
            throw new SSLException("TLS renegotiation refused");
        }
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) task.run(); // a ticket or key update: small
        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            ensureNetOut();
            engine.wrap(EMPTY, netOut);
        }
    }

    boolean isInboundDone() {
        return inboundDone;
    }

    /** Unwraps from {@code netIn} into the channel's input during the handshake (application data may follow the last flight). */
    private SSLEngineResult unwrap() throws SSLException {
        ensureNetIn();
        return unwrapInto(channel.input());
    }

    private SSLEngineResult unwrapInto(ByteBuffer plain) throws SSLException {
        netIn.flip();
        try {
            return engine.unwrap(netIn, plain);
        } finally {
            netIn.compact();
        }
    }

    // ---- writing ---------------------------------------------------------------------------------

    /** Seals queued plain text and writes records while the socket takes them. */
    void flush() throws IOException {
        long sealed = 0;
        while (true) {
            if (!flushNetOut()) return;
            if (channel.out().isEmpty() || sealed >= MAX_SEAL_PER_FLUSH) {
                releaseNetOutIfEmpty();
                return;
            }
            ensureNetOut();
            SSLEngineResult result = channel.out().wrapInto(engine, netOut);
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) throw new SSLException("TLS output already closed");
            if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) throw new SSLException("TLS engine made no progress: " + result);
            sealed += result.bytesConsumed();
            sealedNotSent += result.bytesConsumed();
        }
    }

    /** Writes sealed records; true when none is left. */
    private boolean flushNetOut() throws IOException {
        if (netOut == null || netOut.position() == 0) return true;
        netOut.flip();
        int written;
        try {
            written = channel.io().write(netOut);
        } finally {
            netOut.compact();
        }
        if (written > 0) channel.onSocketWrite(written);
        if (netOut.position() > 0) return false;
        if (sealedNotSent > 0) {
            channel.onEncrypted(sealedNotSent);
            sealedNotSent = 0;
        }
        return true;
    }

    /** Queues {@code close_notify} once; true when it (and everything before it) is written. */
    boolean closeOutbound() {
        try {
            if (!outboundClosed) {
                outboundClosed = true;
                engine.closeOutbound();
                ensureNetOut();
                engine.wrap(EMPTY, netOut);
            }
            return flushNetOut();
        } catch (IOException e) {
            return true; // the lingering close follows anyway
        }
    }

    long pendingBytes() {
        return netOut == null ? 0 : netOut.position();
    }

    void dropOutput() {
        if (netOut != null) netOut.clear();
    }

    // ---- buffers ---------------------------------------------------------------------------------

    /** A plain-text input buffer: room for one whole record beside what the protocol left unread. */
    ByteBuffer acquire() {
        return plainText.acquire();
    }

    void releaseBuffer(ByteBuffer buffer) {
        plainText.release(buffer);
    }

    void releaseInput() {
        if (netIn != null) {
            pool.release(netIn);
            netIn = null;
        }
    }

    void release() {
        releaseInput();
        if (netOut != null) {
            pool.release(netOut);
            netOut = null;
        }
    }

    private void ensureNetIn() {
        if (netIn == null) netIn = pool.acquire();
    }

    private void ensureNetOut() {
        if (netOut == null) netOut = pool.acquire();
    }

    private void releaseNetInIfEmpty() {
        if (netIn != null && netIn.position() == 0) releaseInput();
    }

    private void releaseNetOutIfEmpty() {
        if (netOut != null && netOut.position() == 0) {
            pool.release(netOut);
            netOut = null;
        }
    }
}
