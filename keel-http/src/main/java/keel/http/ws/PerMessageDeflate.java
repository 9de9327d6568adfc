package keel.http.ws;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The permessage-deflate extension (RFC 7692) as a handshake agreed it, and its negotiation.
 *
 * <p>The JDK's {@link java.util.zip.Deflater} always compresses with a 32 KiB window (15 bits), and
 * its {@link java.util.zip.Inflater} reads any window up to that. So Keel accepts every window the
 * peer compresses with, but never agrees to compress with fewer than 15 bits itself: a server
 * declines an offer with {@code server_max_window_bits} under 15 (RFC 7692 §7.1.2.1) and takes the
 * next one, and Keel's client never offers {@code client_max_window_bits}.
 *
 * @param serverNoContextTakeover the server resets its compressor after each message
 * @param clientNoContextTakeover the client resets its compressor after each message
 * @param serverMaxWindowBits     the largest window the server compresses with (8..15)
 * @param clientMaxWindowBits     the largest window the client compresses with (8..15)
 */
public record PerMessageDeflate(boolean serverNoContextTakeover, boolean clientNoContextTakeover,
                                int serverMaxWindowBits, int clientMaxWindowBits) {
    static final String NAME = "permessage-deflate";
    private static final String SERVER_NO_CONTEXT_TAKEOVER = "server_no_context_takeover";
    private static final String CLIENT_NO_CONTEXT_TAKEOVER = "client_no_context_takeover";
    private static final String SERVER_MAX_WINDOW_BITS = "server_max_window_bits";
    private static final String CLIENT_MAX_WINDOW_BITS = "client_max_window_bits";
    /** What the JDK's Deflater uses, always. */
    private static final int JDK_WINDOW_BITS = 15;

    public PerMessageDeflate {
        if (!isWindowBits(serverMaxWindowBits) || !isWindowBits(clientMaxWindowBits)) {
            throw new IllegalArgumentException("window bits must be in 8..15: " + serverMaxWindowBits + ", " + clientMaxWindowBits);
        }
    }

    /** The {@code Sec-WebSocket-Extensions} value that states this agreement (a server's answer). */
    public String header() {
        StringBuilder header = new StringBuilder(NAME);
        if (serverNoContextTakeover) header.append("; ").append(SERVER_NO_CONTEXT_TAKEOVER);
        if (clientNoContextTakeover) header.append("; ").append(CLIENT_NO_CONTEXT_TAKEOVER);
        if (serverMaxWindowBits < JDK_WINDOW_BITS) header.append("; ").append(SERVER_MAX_WINDOW_BITS).append('=').append(serverMaxWindowBits);
        if (clientMaxWindowBits < JDK_WINDOW_BITS) header.append("; ").append(CLIENT_MAX_WINDOW_BITS).append('=').append(clientMaxWindowBits);
        return header.toString();
    }

    /** True when the side that is (or is not) the server resets its compressor after each message. */
    boolean resetsCompressor(boolean server) {
        return server ? serverNoContextTakeover : clientNoContextTakeover;
    }

    // ---- server ----------------------------------------------------------------------------------

    /**
     * RFC 7692 §7.1, the server's choice: the first acceptable permessage-deflate offer, or null when
     * none is (the handshake then goes on without the extension). With {@code contextTakeover} false
     * both sides are told to reset after each message (§7.1.1: a server may answer so unasked).
     *
     * An offer with an unknown, repeated or invalid parameter is declined like one Keel cannot serve
     * (§7.1: the server MUST decline it), and the next one is considered.
     */
    static PerMessageDeflate negotiate(List<ExtensionHeader.Extension> offered, boolean contextTakeover) {
        for (ExtensionHeader.Extension extension : offered) {
            if (!extension.name().equalsIgnoreCase(NAME)) continue;
            Map<String, String> offer;
            try {
                offer = parameters(extension, false);
            } catch (IllegalArgumentException malformed) {
                continue; // declined
            }
            String serverBits = offer.get(SERVER_MAX_WINDOW_BITS);
            if (serverBits != null && Integer.parseInt(serverBits) < JDK_WINDOW_BITS) continue; // §7.1.2.1: decline
            String clientBits = offer.get(CLIENT_MAX_WINDOW_BITS); // a hint, or just "supported": never limited by Keel
            return new PerMessageDeflate(!contextTakeover || offer.containsKey(SERVER_NO_CONTEXT_TAKEOVER),
                    !contextTakeover || offer.containsKey(CLIENT_NO_CONTEXT_TAKEOVER), JDK_WINDOW_BITS,
                    clientBits == null || clientBits.isEmpty() ? JDK_WINDOW_BITS : Integer.parseInt(clientBits));
        }
        return null;
    }

    // ---- client ----------------------------------------------------------------------------------

    /** The offer of Keel's client; without context takeover it asks both sides to reset after each message. */
    static String offer(boolean contextTakeover) {
        return contextTakeover ? NAME : NAME + "; " + SERVER_NO_CONTEXT_TAKEOVER + "; " + CLIENT_NO_CONTEXT_TAKEOVER;
    }

    /**
     * RFC 7692 §7.1 and RFC 6455 §9.1, the client's check of the server's answer to {@link #offer}:
     * the agreement, or null when the server answered no extension.
     *
     * @throws IllegalArgumentException when the answer names an extension not offered, or a parameter
     *                                  that is unknown, repeated, invalid or not offered
     */
    static PerMessageDeflate accept(List<ExtensionHeader.Extension> answered, boolean offered, boolean contextTakeover) {
        if (answered.isEmpty()) return null;
        ExtensionHeader.Extension first = answered.getFirst();
        if (!offered || answered.size() > 1 || !first.name().equalsIgnoreCase(NAME)) {
            throw new IllegalArgumentException("the server agreed to extensions that were not offered: "
                    + answered.stream().map(ExtensionHeader.Extension::name).toList());
        }
        Map<String, String> answer = parameters(first, true);
        if (answer.containsKey(CLIENT_MAX_WINDOW_BITS)) {
            throw new IllegalArgumentException(CLIENT_MAX_WINDOW_BITS + " was not offered (Keel compresses with a 32 KiB window only)");
        }
        String serverBits = answer.get(SERVER_MAX_WINDOW_BITS);
        return new PerMessageDeflate(answer.containsKey(SERVER_NO_CONTEXT_TAKEOVER),
                !contextTakeover || answer.containsKey(CLIENT_NO_CONTEXT_TAKEOVER),
                serverBits == null ? JDK_WINDOW_BITS : Integer.parseInt(serverBits), JDK_WINDOW_BITS);
    }

    /**
     * The parameters of one offer ({@code answer} false) or answer, by name; a parameter without a
     * value maps to "". Checks RFC 7692 §7.1: only its four parameters, each at most once, the
     * no-context-takeover ones without a value, window bits 8..15 (only an offer's
     * {@code client_max_window_bits} may go without one).
     */
    private static Map<String, String> parameters(ExtensionHeader.Extension extension, boolean answer) {
        Map<String, String> parameters = new HashMap<>(4);
        for (ExtensionHeader.Param param : extension.params()) {
            String name = param.name();
            String value = param.value();
            boolean valid = switch (name) {
                case SERVER_NO_CONTEXT_TAKEOVER, CLIENT_NO_CONTEXT_TAKEOVER -> value == null;
                case SERVER_MAX_WINDOW_BITS -> value != null && isWindowBits(value);
                case CLIENT_MAX_WINDOW_BITS -> value == null ? !answer : isWindowBits(value);
                default -> throw new IllegalArgumentException("unknown " + NAME + " parameter '" + name + "'");
            };
            if (!valid) throw new IllegalArgumentException("invalid " + NAME + " parameter " + name + (value == null ? "" : "=" + value));
            if (parameters.put(name, value == null ? "" : value) != null) {
                throw new IllegalArgumentException(NAME + " parameter " + name + " repeated");
            }
        }
        return parameters;
    }

    /** 8..15 in decimal without leading zeros (RFC 7692 §7.1.2.1). */
    private static boolean isWindowBits(String value) {
        return value.matches("[89]|1[0-5]");
    }

    private static boolean isWindowBits(int bits) {
        return bits >= 8 && bits <= JDK_WINDOW_BITS;
    }
}
