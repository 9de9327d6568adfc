package keel.http.ws;

import keel.core.buffer.WriteQueue;
import keel.http.Request;
import keel.http.Response;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.zip.DataFormatException;

/**
 * The opening handshake of RFC 6455 §4: checks an upgrade request against a {@link WsEndpoint},
 * agrees on permessage-deflate (RFC 7692, see {@link PerMessageDeflate}) and writes the
 * {@code 101 Switching Protocols} answer; and the client's side of the extension negotiation.
 * Pure: no I/O, no state.
 */
@SuppressWarnings("exports") // writeSwitchingProtocols is keel.http.server.nio's: WriteQueue is exported to keel.http only
public final class WsHandshake {
    /** RFC 6455 §1.3: appended to the client's key before hashing. */
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    static final String VERSION = "13";
    private static final String EXTENSIONS = "Sec-WebSocket-Extensions";

    /** The handshake's outcome. */
    public sealed interface Outcome {
    }

    /** Upgrade: answer 101 with this accept key, subprotocol (or null) and permessage-deflate agreement (or null). */
    public record Accepted(String acceptKey, String subprotocol, PerMessageDeflate deflate) implements Outcome {
    }

    /** Answer this instead (400, 403 or 426 with a reason). */
    public record Refused(Response response) implements Outcome {
    }

    private WsHandshake() {
    }

    /**
     * Checks {@code request}; the endpoint's origin and subprotocol hooks run here. With
     * {@code options.compression()} the first acceptable permessage-deflate offer is agreed (a malformed
     * offer is declined); a {@code Sec-WebSocket-Extensions} field that does not parse gets 400.
     */
    public static Outcome check(Request request, WsEndpoint endpoint, WsOptions options) {
        if (!hasToken(request, "Upgrade", "websocket")) {
            return new Refused(upgradeRequired("this resource speaks WebSocket only: send an upgrade request (Upgrade: websocket)"));
        }
        if (!request.method().equals("GET")) return refuse(400, "a WebSocket handshake must be a GET");
        if (!request.isHttp11()) return refuse(400, "a WebSocket handshake needs HTTP/1.1");
        if (!hasToken(request, "Connection", "upgrade")) return refuse(400, "the Connection header must contain 'Upgrade'");
        String version = request.header("Sec-WebSocket-Version");
        if (version == null || !version.trim().equals(VERSION)) {
            return new Refused(upgradeRequired("unsupported Sec-WebSocket-Version '" + version + "'; this server speaks 13"));
        }
        String key = request.header("Sec-WebSocket-Key");
        if (!isValidKey(key)) return refuse(400, "Sec-WebSocket-Key must be 16 bytes in base64");
        PerMessageDeflate deflate = null;
        if (options.compression()) {
            try {
                deflate = PerMessageDeflate.negotiate(ExtensionHeader.parse(request.headers().all(EXTENSIONS)), options.contextTakeover());
            } catch (IllegalArgumentException e) {
                return refuse(400, "malformed " + EXTENSIONS + ": " + e.getMessage());
            }
        }
        if (!endpoint.originAllowed(request.header("Origin"))) return refuse(403, "origin not allowed");
        String subprotocol = endpoint.selectSubprotocol(tokens(request, "Sec-WebSocket-Protocol"));
        return new Accepted(acceptKey(key.trim()), subprotocol, deflate);
    }

    /** The {@code Sec-WebSocket-Extensions} value a client with {@code options} offers, or null for none. */
    public static String extensionOffer(WsOptions options) {
        return options.compression() ? PerMessageDeflate.offer(options.contextTakeover()) : null;
    }

    /**
     * A client's check of the server's {@code Sec-WebSocket-Extensions} values (every field of that
     * name) against what {@link #extensionOffer} offered: the agreement, or null for none.
     *
     * @throws IllegalArgumentException when the answer is malformed or agrees to what was not offered
     */
    public static PerMessageDeflate acceptedExtensions(List<String> fieldValues, WsOptions options) {
        return PerMessageDeflate.accept(ExtensionHeader.parse(fieldValues), options.compression(), options.contextTakeover());
    }

    /** Queues the 101 answer. */
    public static void writeSwitchingProtocols(WriteQueue out, Accepted accepted) {
        out.putAscii("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ");
        out.putAscii(accepted.acceptKey());
        if (accepted.subprotocol() != null) {
            out.putAscii("\r\nSec-WebSocket-Protocol: ");
            out.putAscii(accepted.subprotocol());
        }
        if (accepted.deflate() != null) {
            out.putAscii("\r\n" + EXTENSIONS + ": ");
            out.putAscii(accepted.deflate().header());
        }
        out.putAscii("\r\n\r\n");
    }

    /**
     * Does the one-time work of the first handshake now (loading the SHA-1 provider took over 100 ms
     * on a cold JVM) and of the first compressed message (the zip classes), so it does not stall an
     * event loop on the first upgrade.
     */
    public static void prepare() {
        acceptKey("dGhlIHNhbXBsZSBub25jZQ==");
        MessageDeflater deflater = new MessageDeflater(WsOptions.defaults().compressionLevel(), false);
        MessageInflater inflater = new MessageInflater(1024, false);
        try {
            byte[] compressed = deflater.compress(new byte[MessageDeflater.MIN_SIZE], true);
            inflater.inflate(compressed, compressed.length);
        } catch (DataFormatException e) {
            throw new IllegalStateException("permessage-deflate round trip failed", e);
        } finally {
            deflater.release();
            inflater.release();
        }
    }

    /** RFC 6455 §4.2.2: base64 of the SHA-1 of the key and the GUID. */
    public static String acceptKey(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }

    /** A fresh client key: 16 random bytes in base64. */
    public static String newKey(RandomGenerator random) {
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        return Base64.getEncoder().encodeToString(nonce);
    }

    private static boolean isValidKey(String key) {
        if (key == null) return false;
        try {
            return Base64.getDecoder().decode(key.trim()).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Refused refuse(int status, String reason) {
        return new Refused(Response.text(status, reason + "\n"));
    }

    /** RFC 9110 §15.5.22: a 426 names the protocol to upgrade to; RFC 6455 §4.4 adds the versions spoken. */
    private static Response upgradeRequired(String reason) {
        return Response.text(426, reason + "\n").header("Upgrade", "websocket").header("Sec-WebSocket-Version", VERSION);
    }

    private static boolean hasToken(Request request, String header, String token) {
        return tokens(request, header).stream().anyMatch(token::equalsIgnoreCase);
    }

    /** The comma-separated tokens of every field named {@code header}, trimmed, in order. */
    static List<String> tokens(Request request, String header) {
        List<String> tokens = new ArrayList<>(2);
        for (String value : request.headers().all(header)) {
            for (String token : value.split(",")) {
                String trimmed = token.trim();
                if (!trimmed.isEmpty()) tokens.add(trimmed);
            }
        }
        return tokens;
    }
}
