package keel.lab;

import keel.http.Execution;
import keel.http.router.Router;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;

/**
 * The lab's WebSocket endpoints: {@code /ws/echo} echoes every message (under the server's default
 * execution, like the benchmark routes) and {@code /ws/fib} answers each text message {@code n} with
 * {@code n=Fibonacci(n)}, computed on a virtual thread. A bad {@code n} gets a text message
 * {@code error: ...} and the session stays open.
 */
public final class WsRoutes {
    static final WsListener ECHO = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            session.send(text);
        }

        @Override
        public void onBinary(WsSession session, byte[] data) {
            session.send(data);
        }
    };

    static final WsListener FIBONACCI = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            session.send(answer(text));
        }
    };

    private WsRoutes() {
    }

    public static Router register(Router router) {
        router.ws("/ws/echo", ECHO);
        router.with(Execution.VIRTUAL_THREAD).ws("/ws/fib", FIBONACCI);
        return router;
    }

    static String answer(String text) {
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= 0 && n <= 92) return n + "=" + BenchmarkRoutes.fibonacci(n);
        } catch (NumberFormatException e) {
            // answered below
        }
        return "error: expected an integer n in 0..92, got '" + text + "'";
    }
}
