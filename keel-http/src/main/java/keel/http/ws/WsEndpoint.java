package keel.http.ws;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A WebSocket route's listener and its handshake hooks, immutable:
 *
 * <pre>{@code
 * router.ws("/chat", WsEndpoint.of(chat)
 *         .originCheck(origin -> origin == null || origin.equals("https://example.com"))
 *         .subprotocols("chat.v2", "chat.v1"));
 * }</pre>
 *
 * The hooks run on the connection's event loop during the handshake and must be quick. A refused
 * origin answers 403; a hook may also throw {@code HttpStatusException} to answer its own status.
 */
public final class WsEndpoint {
    private final WsListener listener;
    private final Predicate<String> originCheck;
    private final Function<List<String>, String> subprotocolSelector;

    private WsEndpoint(WsListener listener, Predicate<String> originCheck, Function<List<String>, String> subprotocolSelector) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.originCheck = Objects.requireNonNull(originCheck, "originCheck");
        this.subprotocolSelector = Objects.requireNonNull(subprotocolSelector, "subprotocolSelector");
    }

    /** Any origin, no subprotocol. */
    public static WsEndpoint of(WsListener listener) {
        return new WsEndpoint(listener, origin -> true, offered -> null);
    }

    /** Accepts the handshake only when {@code allowed} accepts its {@code Origin} header (null when absent); else 403. */
    public WsEndpoint originCheck(Predicate<String> allowed) {
        return new WsEndpoint(listener, allowed, subprotocolSelector);
    }

    /** Picks the first subprotocol the client offers that is in {@code supported}; none agreed when there is none. */
    public WsEndpoint subprotocols(String... supported) {
        List<String> ours = List.of(supported);
        return subprotocolSelector(offered -> offered.stream().filter(ours::contains).findFirst().orElse(null));
    }

    /** Chooses among the subprotocols the client offers, in its order; it returns one of them or null. */
    public WsEndpoint subprotocolSelector(Function<List<String>, String> select) {
        return new WsEndpoint(listener, originCheck, select);
    }

    public WsListener listener() {
        return listener;
    }

    boolean originAllowed(String origin) {
        return originCheck.test(origin);
    }

    String selectSubprotocol(List<String> offered) {
        String chosen = subprotocolSelector.apply(offered);
        if (chosen != null && !offered.contains(chosen)) {
            throw new IllegalStateException("subprotocol selector chose '" + chosen + "', which the client did not offer: " + offered);
        }
        return chosen;
    }
}
