package keel.http.execution;

import keel.http.Execution;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Route;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

/**
 * What the {@link Dispatcher} makes of a request, in the two steps a protocol takes one after the
 * other: {@link Dispatcher#route route} it, then {@link Dispatcher#run run} what is ready. Each step
 * returns; neither calls back into the protocol, which alone reserves the place of a later answer in
 * its loop's task queue, arms the handler's deadline, times the answer and writes the access line.
 */
public final class Dispatch {
    private Dispatch() {
    }

    /** What routing found: an answer of the router's own, or a handler ready to run. */
    public sealed interface Routed permits Answered, Ready {
        /** The matched route's pattern, as the observer and the access log name it; null when none matched. */
        String pattern();
    }

    /** What running a ready handler did. */
    public sealed interface Started permits Answered, Running, Upgrade {
    }

    /**
     * Answered on the calling thread: by the router (400, 404, 405, 415), by a refusal (503), or by a
     * handler that answered at once. {@code pattern} is the matched route's, or null.
     */
    public record Answered(Response response, String pattern) implements Routed, Started {
    }

    /**
     * A handler to run under {@code execution}, for {@code request} as its handler sees it (path
     * parameters set, body decoded on reading). {@code deadlineNanos}: its deadline, 0 for none.
     */
    public record Ready(Route route, Request request, Execution execution, long deadlineNanos) implements Routed {
        /** True when the answer may come later or from another thread: the protocol reserves its place before {@code run}. */
        public boolean answersLater() {
            return switch (route.endpoint()) {
                case Route.Sync sync -> execution != Execution.EVENT_LOOP;
                case Route.Async async -> true;
                case Route.WebSocket webSocket -> false;
            };
        }

        /** True for a WebSocket route: running it checks the handshake. */
        public boolean upgrades() {
            return route.endpoint() instanceof Route.WebSocket;
        }

        @Override
        public String pattern() {
            return route.path();
        }
    }

    /**
     * The handler runs, or will: its answer reaches the inbox given to {@code run} from whatever
     * thread makes it, once, and the inbox takes it to the protocol's loop in one task. {@code run}
     * is non-null when the handler waits off the loop for {@link PipelineRun#start}: until then, the
     * requests pipelined behind it may join it.
     */
    public record Running(HandlerCall call, PipelineRun run) implements Started {
    }

    /** A WebSocket route accepted the handshake: the protocol answers 101 and switches; {@code release} runs as the session closes. */
    public record Upgrade(WsHandshake.Accepted accepted, WsConnection.Binding binding, Runnable release) implements Started {
    }
}
