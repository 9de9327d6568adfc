package keel.http;

/** The standard request methods (RFC 9110 §9 and PATCH), each with a small index for array lookups. */
public final class Methods {
    /** In index order; the parser shares these instances, so they compare cheaply. */
    private static final String[] STANDARD = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"};

    private Methods() {
    }

    /** How many standard methods there are: indexes run from 0 to {@code count() - 1}. */
    public static int count() {
        return STANDARD.length;
    }

    public static String name(int index) {
        return STANDARD[index];
    }

    /** The index of a standard method, or -1 for any other. */
    public static int index(String method) {
        return switch (method) {
            case "GET" -> 0;
            case "HEAD" -> 1;
            case "POST" -> 2;
            case "PUT" -> 3;
            case "DELETE" -> 4;
            case "PATCH" -> 5;
            case "OPTIONS" -> 6;
            case "TRACE" -> 7;
            case "CONNECT" -> 8;
            default -> -1;
        };
    }
}
