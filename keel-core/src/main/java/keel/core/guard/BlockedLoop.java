package keel.core.guard;

import keel.core.loop.EventLoop;

/**
 * A loop the watchdog found stuck in one round (see {@link keel.core.loop.EventLoop#rounds}) for at least {@code blockedNanos}.
 *
 * @param activity what the loop said it was running (a route, for an HTTP handler), or null
 * @param stack    the loop thread's stack when it was caught: the blocking call is near the top
 */
public record BlockedLoop(EventLoop loop, Object activity, StackTraceElement[] stack, long blockedNanos) {

    /** The stack as log lines, top frame first, at most {@code depth} frames. */
    public String stackText(int depth) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < Math.min(depth, stack.length); i++) text.append("\n\tat ").append(stack[i]);
        if (stack.length > depth) text.append("\n\t... ").append(stack.length - depth).append(" more");
        return text.toString();
    }
}
