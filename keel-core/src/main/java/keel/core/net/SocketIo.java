package keel.core.net;

import keel.core.log.Log;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * How a {@link Channel}'s bytes cross its socket. On Linux, when the JVM allows it, one buffer at a
 * time goes through the {@code recvfrom(2)} and {@code sendto(2)} system calls on the socket's
 * descriptor (the FFM API, the buffer passed where it lies, heap or not); everything else, and every
 * call that does not simply move bytes, goes through the JDK's {@link SocketChannel}. They are made
 * through the C library's {@code syscall(2)}: glibc's {@code recv} and {@code send} are thread
 * cancellation points, which (in glibc 2.36, Debian 12's) switch asynchronous cancellation on and off
 * around every call, for threads that are never cancelled.
 * <p>
 * Why: the JDK's channel reads and writes with {@code read(2)} and {@code write(2)}, through the
 * kernel's file layer, copies a heap buffer into a direct one of its own first, and takes a lock and
 * marks the thread as in I/O around each call. A loop that owns its channel needs none of that; a
 * small keep-alive request costs less CPU without it, most of the saving in the kernel
 * (bench/RESULTS.md has the runs).
 * <p>
 * As the JDK's channel: {@code EAGAIN} (nothing to read, no room to write) is 0 bytes, the end of
 * input -1, {@code EINTR} a call made again, any other error a {@link SocketException} in the C
 * library's words for it ("Connection reset by peer", "Broken pipe"). The descriptor is used only
 * while the JDK's channel is open and non-blocking (a critical call must not wait): a registered
 * channel's descriptor is closed by its loop's next poll after {@link SocketChannel#close}, never
 * during a call of this loop; a closed or blocking channel's calls go to the JDK's (a closed one
 * throws its {@link java.nio.channels.ClosedChannelException}).
 * <p>
 * Needs native access for this module ({@code --enable-native-access}) and {@code sun.nio.ch} opened
 * to it ({@code --add-opens java.base/sun.nio.ch=...}), for the descriptor; {@code bin/keel} gives
 * the first always and the second when {@code server.native-io} asks for it. Without them, or off Linux, or when a channel's settings leave it off (the default:
 * {@code server.native-io}), every call goes to the JDK's channel (said once in the log when it was
 * asked for). Setting the calls up costs some 30 ms of the first channel's (the FFM's first downcall
 * handle, with an AOT cache; over 100 ms without), which is why a channel asks for it. Loop thread
 * only, like its channel.
 */
final class SocketIo implements ByteChannel, GatheringByteChannel {
    private static final Log LOG = Log.of(SocketIo.class);
    private static final long MSG_NOSIGNAL = 0x4000;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final AtomicBoolean OFF_SAID = new AtomicBoolean();

    private final SocketChannel socket;
    /** The socket's descriptor, or -1: every call through the JDK's channel. */
    private final int fd;
    /** Where a call leaves its {@code errno}: this channel's own, so no two threads share one. */
    private final int[] errno = new int[1];
    private final MemorySegment callState = MemorySegment.ofArray(errno);

    SocketIo(SocketChannel socket, boolean nativeWanted) {
        this.socket = socket;
        this.fd = nativeWanted ? Native.descriptor(socket) : -1;
    }

    /**
     * Null where recv/send can be used (Linux on x86-64 or AArch64, native access, {@code sun.nio.ch}
     * open), else why not. The first call sets them up, on the calling thread.
     */
    static String unavailable() {
        return Native.UNAVAILABLE;
    }

    /** True when this channel's single-buffer reads and writes go through recv/send. */
    boolean isNative() {
        return fd >= 0;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!usable() || !dst.hasRemaining()) return socket.read(dst);
        long n;
        do {
            try {
                n = (long) Native.SYSCALL.invokeExact(callState, Native.RECVFROM, (long) fd, MemorySegment.ofBuffer(dst), (long) dst.remaining(), 0L, 0L, 0L);
            } catch (Throwable e) {
                throw new IllegalStateException("recv", e); // the handle's signature is fixed: cannot happen
            }
        } while (n < 0 && errno[0] == EINTR);
        if (n > 0) {
            dst.position(dst.position() + (int) n);
            return (int) n;
        }
        if (n == 0) return -1;
        return failed("recv");
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (!usable() || !src.hasRemaining()) return socket.write(src);
        long n;
        do {
            try {
                n = (long) Native.SYSCALL.invokeExact(callState, Native.SENDTO, (long) fd, MemorySegment.ofBuffer(src), (long) src.remaining(), MSG_NOSIGNAL, 0L, 0L);
            } catch (Throwable e) {
                throw new IllegalStateException("send", e);
            }
        } while (n < 0 && errno[0] == EINTR);
        if (n >= 0) {
            src.position(src.position() + (int) n);
            return (int) n;
        }
        return failed("send");
    }

    /** The descriptor may be used now: the channel is open, and a call on it never waits. */
    private boolean usable() {
        return fd >= 0 && socket.isOpen() && !socket.isBlocking();
    }

    /** A call returned -1: 0 for {@code EAGAIN}, else the error. */
    private int failed(String call) throws SocketException {
        if (errno[0] == EAGAIN) return 0;
        throw new SocketException(describe(errno[0]) + " (" + call + ")");
    }

    /**
     * The C library's words for the errors a connected socket's {@code recv} and {@code send} return
     * (Linux's numbers, the same on x86-64 and AArch64). Not {@code strerror}: a second downcall handle
     * would add its own start-up cost for a message.
     */
    static String describe(int errno) {
        return switch (errno) {
            case 32 -> "Broken pipe";
            case 100 -> "Network is down";
            case 101 -> "Network is unreachable";
            case 103 -> "Software caused connection abort";
            case 104 -> "Connection reset by peer";
            case 107 -> "Transport endpoint is not connected";
            case 110 -> "Connection timed out";
            case 113 -> "No route to host";
            default -> "errno " + errno;
        };
    }

    /** Several buffers at once: the JDK's gathering write. */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return socket.write(srcs, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return socket.write(srcs);
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** The downcalls and the descriptor's field, looked up once; all null when unavailable. */
    private static final class Native {
        /** {@code syscall(long number, ...)}, called as {@code syscall(number, fd, buf, len, flags, 0, 0)}. */
        static final MethodHandle SYSCALL;
        /** The system calls' numbers (x86-64, else AArch64's). */
        static final long RECVFROM;
        static final long SENDTO;
        static final Field FD;
        static final String UNAVAILABLE;

        static {
            MethodHandle syscall = null;
            boolean arm = "aarch64".equals(System.getProperty("os.arch"));
            Field fd = null;
            String why = NativeCalls.unavailable(SocketIo.class.getModule());
            if (why == null) {
                try {
                    fd = Class.forName("sun.nio.ch.SocketChannelImpl").getDeclaredField("fdVal");
                    fd.setAccessible(true);
                    Linker linker = Linker.nativeLinker();
                    // recvfrom and sendto (fd, buf, len, flags, no address, no length) -> ssize_t, every
                    // argument after the number passed as a full register (syscall reads six longs).
                    // Critical: they never block on a non-blocking socket, and a heap buffer is passed
                    // where it lies (the errno they leave too).
                    FunctionDescriptor call = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
                    syscall = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(), call,
                            Linker.Option.firstVariadicArg(1), Linker.Option.critical(true), Linker.Option.captureCallState("errno"));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    why = e instanceof java.lang.reflect.InaccessibleObjectException
                            ? "sun.nio.ch is not open to Keel: run the JVM with --add-opens java.base/sun.nio.ch="
                                    + NativeCalls.name(SocketIo.class.getModule())
                            : e.toString();
                    syscall = null;
                    fd = null;
                }
            }
            SYSCALL = syscall;
            RECVFROM = arm ? 207 : 45;
            SENDTO = arm ? 206 : 44;
            FD = fd;
            UNAVAILABLE = why;
        }

        static int descriptor(SocketChannel socket) {
            if (FD == null) {
                if (OFF_SAID.compareAndSet(false, true)) LOG.info("native_io_off", "reason", UNAVAILABLE);
                return -1;
            }
            try {
                return FD.getInt(socket);
            } catch (IllegalAccessException | IllegalArgumentException notTheJdksChannel) {
                return -1; // a channel of another provider: through it
            }
        }
    }
}
