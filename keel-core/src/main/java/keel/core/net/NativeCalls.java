package keel.core.net;

import java.util.Set;

/** Where Keel's calls into the C library through the FFM API can be made: Linux on x86-64 or AArch64 (whose constants they use), with native access. */
public final class NativeCalls {
    private NativeCalls() {
    }

    /** Null when {@code module} may call the C library here, else why not (with the JVM option that would allow it). */
    public static String unavailable(Module module) {
        if (!"Linux".equals(System.getProperty("os.name"))) return "not Linux";
        if (!Set.of("amd64", "x86_64", "aarch64").contains(System.getProperty("os.arch"))) return "not x86-64 or AArch64";
        if (!module.isNativeAccessEnabled()) return "native access is not enabled: run the JVM with --enable-native-access=" + name(module);
        return null;
    }

    /** The module's name as JVM options spell it ({@code ALL-UNNAMED} for the class path). */
    public static String name(Module module) {
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }
}
