package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.http.Headers;
import keel.http.Request;
import keel.http.ws.PerMessageDeflate;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLEngine;

/**
 * The client side of the opening handshake, a {@link Protocol} on the connection's channel: connect,
 * send the upgrade request (offering permessage-deflate unless the options turn it off), read the
 * answer head, check it (RFC 6455 §4.1, RFC 7692 §7.1), then switch the channel to a
 * {@link WsConnection}. Loop thread only.
 */
final class WsClientHandshake implements Protocol {
    private static final Log LOG = Log.of(WsClientHandshake.class);

    private final long id;
    private final URI uri;
    private final List<String> subprotocols;
    private final WsListener listener;
    private final RandomGenerator random;
    private final WsConnection.Settings settings;
    private final CompletableFuture<WsSession> opened;
    private final String key;
    private Channel channel;

    WsClientHandshake(long id, URI uri, List<String> subprotocols, WsListener listener, RandomGenerator random,
                      WsConnection.Settings settings, CompletableFuture<WsSession> opened) {
        this.id = id;
        this.uri = uri;
        this.subprotocols = subprotocols;
        this.listener = listener;
        this.random = random;
        this.settings = settings;
        this.opened = opened;
        this.key = WsHandshake.newKey(random);
    }

    /** Connects on {@code loop} (its thread), over TLS when {@code engine} is given. */
    void start(InetSocketAddress address, EventLoop loop, Channel.Settings channelSettings, SSLEngine engine) {
        try {
            Channel.connect(address, loop, channelSettings, engine, this, closed -> { });
        } catch (RuntimeException e) {
            opened.completeExceptionally(e); // no socket could be opened
        }
    }

    @Override
    public void onAttach(Channel attached) {
        channel = attached;
        channel.deadlineAfter(WebSocketClient.HANDSHAKE_TIMEOUT.toNanos());
    }

    @Override
    public void onOpen(Channel open) {
        channel.out().putAscii(request());
        channel.flush();
    }

    @Override
    public void onDeadline(Channel from) {
        fail(new IOException("WebSocket handshake with " + uri + " did not finish within "
                + WebSocketClient.HANDSHAKE_TIMEOUT.toSeconds() + " s"));
    }

    @Override
    public void onEndOfInput(Channel from) {
        fail(new IOException("connection closed during the WebSocket handshake with " + uri));
    }

    @Override
    public void onClosed(Channel from, Throwable cause) {
        if (!opened.isDone()) opened.completeExceptionally(cause != null ? cause : new IOException("connection closed during the WebSocket handshake"));
    }

    @Override
    public void onInput(Channel from, ByteBuffer in) {
        int end = endOfHead(in);
        if (end < 0) {
            if (in.limit() == in.capacity()) fail(new IOException("handshake answer head larger than " + in.capacity() + " bytes"));
            return;
        }
        String head = new String(in.array(), in.arrayOffset() + in.position(), end - in.position(), StandardCharsets.ISO_8859_1);
        WsConnection.Binding binding;
        try {
            binding = check(head);
        } catch (IOException e) {
            fail(e);
            return;
        }
        // What followed the head is already WebSocket input: the channel offers it to the session next.
        in.position(end);
        channel.clearDeadline();
        WsConnection connection = WsConnection.client(id, random, binding, settings);
        channel.switchTo(connection);
        opened.complete(connection.session());
    }

    /** Checks the answer head; returns what the session is bound to, with the agreed subprotocol and extension (each may be null). */
    private WsConnection.Binding check(String head) throws IOException {
        List<String> lines = head.lines().toList();
        String status = lines.getFirst();
        if (!status.startsWith("HTTP/1.1 101")) throw new IOException("WebSocket handshake refused by " + uri + ": " + status);
        Headers.Builder fields = new Headers.Builder();
        for (String line : lines.subList(1, lines.size())) {
            int colon = line.indexOf(':');
            if (colon > 0) fields.add(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
        }
        Headers headers = fields.build();
        String accept = headers.get("Sec-WebSocket-Accept");
        if (!WsHandshake.acceptKey(key).equals(accept)) throw new IOException("wrong Sec-WebSocket-Accept from " + uri + ": " + accept);
        String upgrade = headers.get("Upgrade");
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) throw new IOException("101 without 'Upgrade: websocket' from " + uri);
        String subprotocol = headers.get("Sec-WebSocket-Protocol");
        if (subprotocol != null && !subprotocols.contains(subprotocol)) {
            throw new IOException("server chose subprotocol '" + subprotocol + "', which was not offered");
        }
        PerMessageDeflate deflate;
        try {
            deflate = WsHandshake.acceptedExtensions(headers.all("Sec-WebSocket-Extensions"), settings.options());
        } catch (IllegalArgumentException e) {
            throw new IOException("unacceptable Sec-WebSocket-Extensions from " + uri + ": " + e.getMessage());
        }
        Request request = new Request("GET", target(), true, true, Headers.of("Host", authority()), new byte[0]);
        return new WsConnection.Binding(listener, request, subprotocol, deflate, null, null);
    }

    /** Position just past the CRLFCRLF that ends the head ({@code buffer} in read mode), or -1. */
    private static int endOfHead(ByteBuffer buffer) {
        for (int i = buffer.position() + 3; i < buffer.limit(); i++) {
            if (buffer.get(i) == '\n' && buffer.get(i - 1) == '\r' && buffer.get(i - 2) == '\n' && buffer.get(i - 3) == '\r') return i + 1;
        }
        return -1;
    }

    private String request() {
        StringBuilder request = new StringBuilder(256)
                .append("GET ").append(target()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(authority()).append("\r\n")
                .append("Upgrade: websocket\r\nConnection: Upgrade\r\n")
                .append("Sec-WebSocket-Key: ").append(key).append("\r\n")
                .append("Sec-WebSocket-Version: 13\r\n");
        if (!subprotocols.isEmpty()) request.append("Sec-WebSocket-Protocol: ").append(String.join(", ", subprotocols)).append("\r\n");
        String extensions = WsHandshake.extensionOffer(settings.options());
        if (extensions != null) request.append("Sec-WebSocket-Extensions: ").append(extensions).append("\r\n");
        return request.append("\r\n").toString();
    }

    private String target() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    private String authority() {
        return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
    }

    private void fail(Throwable failure) {
        if (opened.isDone()) return;
        LOG.debug("ws_handshake_failed", "id", id, "uri", uri, "cause", failure);
        opened.completeExceptionally(failure);
        channel.close();
    }
}
