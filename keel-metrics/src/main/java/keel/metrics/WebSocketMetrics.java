package keel.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import keel.http.ws.WsObserver;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Binds a server's WebSocket sessions to Micrometer ({@link KeelMetrics} makes one and the server
 * reports to it):
 *
 * <ul>
 *   <li>{@code keel_websocket_server_sessions_open} (gauge), {@code keel_websocket_server_sessions_opened_total},
 *       {@code keel_websocket_server_sessions_closed_total} (per {@code code_class}, each present from 0:
 *       {@code normal} 1000 and 1005, {@code going_away} 1001, {@code protocol_error} 1002–1010 (the peer
 *       broke the protocol or a limit), {@code abnormal} 1006 and 1015 (no close handshake),
 *       {@code server_error} 1011–1014, {@code application} 3000–4999, {@code other})</li>
 *   <li>{@code keel_websocket_server_messages_received_total}, {@code keel_websocket_server_messages_sent_total}
 *       (whole text and binary messages) and {@code keel_websocket_server_bytes_received_total},
 *       {@code keel_websocket_server_bytes_sent_total} (their payload bytes, UTF-8 for text)</li>
 * </ul>
 *
 * <p>Threads: sessions call it on their event loops; each event costs one or two atomic adds.
 */
public final class WebSocketMetrics implements WsObserver {
    /** The {@code code_class} values, in the order of {@link #codeClass}'s answers. */
    static final List<String> CODE_CLASSES = List.of("normal", "going_away", "protocol_error", "abnormal", "server_error",
            "application", "other");

    private final AtomicInteger open = new AtomicInteger();
    private final Counter opened;
    private final Counter[] closed = new Counter[CODE_CLASSES.size()];
    private final Counter messagesReceived;
    private final Counter messagesSent;
    private final Counter bytesReceived;
    private final Counter bytesSent;

    public WebSocketMetrics(MeterRegistry registry) {
        Gauge.builder("keel.websocket.server.sessions.open", open, AtomicInteger::get)
                .description("WebSocket sessions open now").strongReference(true).register(registry);
        this.opened = counter(registry, "keel.websocket.server.sessions.opened", "WebSocket sessions opened");
        for (int i = 0; i < closed.length; i++) {
            closed[i] = Counter.builder("keel.websocket.server.sessions.closed")
                    .description("WebSocket sessions closed, by the class of the close code their listener got")
                    .tag("code_class", CODE_CLASSES.get(i))
                    .register(registry);
        }
        this.messagesReceived = counter(registry, "keel.websocket.server.messages.received", "Whole WebSocket messages received");
        this.messagesSent = counter(registry, "keel.websocket.server.messages.sent", "Whole WebSocket messages sent");
        this.bytesReceived = counter(registry, "keel.websocket.server.bytes.received", "Payload bytes of WebSocket messages received");
        this.bytesSent = counter(registry, "keel.websocket.server.bytes.sent", "Payload bytes of WebSocket messages sent");
    }

    private static Counter counter(MeterRegistry registry, String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    /** The index in {@link #CODE_CLASSES} of a close code's class. */
    static int codeClass(int code) {
        if (code == 1000 || code == 1005) return 0;
        if (code == 1001) return 1;
        if (code == 1006 || code == 1015) return 3;
        if (code >= 1002 && code <= 1010) return 2;
        if (code >= 1011 && code <= 1014) return 4;
        if (code >= 3000 && code <= 4999) return 5;
        return 6;
    }

    @Override
    public void onSessionOpened() {
        open.incrementAndGet();
        opened.increment();
    }

    @Override
    public void onSessionClosed(int code) {
        open.decrementAndGet();
        closed[codeClass(code)].increment();
    }

    @Override
    public void onMessageReceived(int payloadBytes) {
        messagesReceived.increment();
        bytesReceived.increment(payloadBytes);
    }

    @Override
    public void onMessageSent(int payloadBytes, boolean last) {
        if (last) messagesSent.increment();
        bytesSent.increment(payloadBytes);
    }
}
