package keel.lab.scenario;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The local RabbitMQ broker the gateway scenario publishes to: whether it answers, and (when
 * {@code rabbitmqctl} is on the PATH) a queue's depth and purge, to count confirmed messages that
 * never reached the queue.
 */
final class Broker {
    static final String HOST = "127.0.0.1";
    static final int PORT = 5672;

    private Broker() {
    }

    /** True when something accepts a TCP connection on the broker's port within a second. */
    static boolean answers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, PORT), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Empties {@code queue}; false when rabbitmqctl is missing or fails (as it does for a queue not declared yet). */
    static boolean purge(String queue) throws InterruptedException {
        return rabbitmqctl("purge_queue", queue) != null;
    }

    /** Messages on {@code queue} now, or -1 when rabbitmqctl cannot say. */
    static long depth(String queue) throws InterruptedException {
        String out = rabbitmqctl("list_queues", "name", "messages");
        if (out == null) return -1;
        for (String line : out.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 2 && parts[0].equals(queue)) {
                try {
                    return Long.parseLong(parts[1]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return 0;
    }

    private static String rabbitmqctl(String... args) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        }
    }
}
