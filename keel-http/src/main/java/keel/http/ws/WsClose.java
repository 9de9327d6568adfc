package keel.http.ws;

/** Close status codes of RFC 6455 §7.4 that Keel sends or checks. */
public final class WsClose {
    /** The purpose of the connection is fulfilled. */
    public static final int NORMAL = 1000;
    /** The endpoint goes away: a stopping server, an idle session. */
    public static final int GOING_AWAY = 1001;
    /** The peer broke the protocol (a bad frame, a bad sequence of frames). */
    public static final int PROTOCOL_ERROR = 1002;
    /** The peer sent a kind of data the endpoint does not accept. */
    public static final int UNSUPPORTED_DATA = 1003;
    /** Reported locally when a Close frame carried no code; never sent. */
    public static final int NO_STATUS = 1005;
    /** Reported locally when the connection ended without a Close frame; never sent. */
    public static final int ABNORMAL = 1006;
    /** A text message (or a close reason) is not valid UTF-8. */
    public static final int INVALID_PAYLOAD = 1007;
    /** A message violates the endpoint's policy. */
    public static final int POLICY_VIOLATION = 1008;
    /** A frame or a message is larger than the endpoint accepts. */
    public static final int TOO_BIG = 1009;
    /** The endpoint met an unexpected condition (a listener threw). */
    public static final int INTERNAL_ERROR = 1011;
    /** The endpoint is overloaded; the client may reconnect later. */
    public static final int TRY_AGAIN_LATER = 1013;

    private WsClose() {
    }

    /** True for a code that may travel in a Close frame (RFC 6455 §7.4.1, §7.4.2 and the IANA registry). */
    public static boolean isValidOnWire(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
    }
}
