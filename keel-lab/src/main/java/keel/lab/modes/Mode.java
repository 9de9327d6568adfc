package keel.lab.modes;

import java.util.List;

/**
 * One way Keel can run the same handlers: the transport × threads matrix plus the event loop.
 *
 * @param name  the word in tables and folder names
 * @param flags the {@code bin/keel serve} flags that select it
 */
record Mode(String name, List<String> flags) {

    static final List<Mode> ALL = List.of(
            new Mode("nio-event-loop", List.of("--transport", "nio", "--execution", "event-loop")),
            new Mode("nio-worker-pool", List.of("--transport", "nio", "--execution", "worker-pool")),
            new Mode("nio-virtual-thread", List.of("--transport", "nio", "--execution", "virtual-thread")),
            new Mode("blocking-platform", List.of("--transport", "blocking", "--threads", "platform")),
            new Mode("blocking-virtual", List.of("--transport", "blocking", "--threads", "virtual")));

    boolean hasEventLoops() {
        return flags.contains("nio");
    }

    boolean runsHandlersOnTheLoop() {
        return flags.contains("event-loop");
    }
}
