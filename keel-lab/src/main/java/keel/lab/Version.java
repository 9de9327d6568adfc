package keel.lab;

/** Keel's version, from the jar's manifest when packaged. */
final class Version {
    static final String VALUE = version();

    private Version() {
    }

    private static String version() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }
}
