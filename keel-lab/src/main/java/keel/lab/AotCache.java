package keel.lab;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether the JDK's AOT cache that {@code bin/keel} asked for ({@code -XX:AOTCache=FILE}) is in use.
 * The JVM starts without a cache it cannot map (corrupt, truncated, made by another JDK or with
 * other options); this says so once, and removes that file so that {@code bin/keel} trains a new
 * one at its next start.
 */
final class AotCache {
    private static final String OPTION = "-XX:AOTCache=";

    private AotCache() {
    }

    /**
     * The cache this JVM was started with, if any. A plain loop: it runs at every start, before the
     * JIT, where each lambda would be a class spun at run time.
     */
    static Optional<Path> requested() {
        String last = null; // the last option wins, as in the JVM
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith(OPTION)) last = argument.substring(OPTION.length());
        }
        return last == null ? Optional.empty() : Optional.of(Path.of(last));
    }

    /** True when the JVM maps a shared archive (the AOT cache when one was asked for): {@code java.vm.info} says "sharing". */
    static boolean inUse() {
        return System.getProperty("java.vm.info", "").contains("sharing");
    }

    /** One line on {@code err} when a cache was asked for and the JVM started without it. */
    static void reportUnusable(PrintStream err) {
        Optional<Path> cache = requested();
        if (cache.isEmpty() || inUse()) return;
        String removed;
        try {
            removed = Files.deleteIfExists(cache.get()) ? "; removed, bin/keel trains a new one at its next start" : "";
        } catch (IOException | SecurityException e) {
            removed = "; could not remove it: " + e.getMessage();
        }
        err.println("keel: the AOT cache " + cache.get() + " could not be used (missing, corrupt, or made by another JDK or with other JVM options);"
                + " starting without it" + removed);
        err.flush();
    }
}
