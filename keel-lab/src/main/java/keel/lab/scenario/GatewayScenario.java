package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * {@code gateway}: publishing to RabbitMQ from a handler, V1 (on the loop) to V4 (virtual threads).
 * Skipped, with the reason as its summary, when no broker answers on 127.0.0.1:5672.
 */
public final class GatewayScenario implements Scenario {
    static final String BROKER_HOST = "127.0.0.1";
    static final int BROKER_PORT = 5672;

    @Override
    public String name() {
        return "gateway";
    }

    @Override
    public ScenarioResult run(LabRun run) {
        String title = "Gateway: publishing to RabbitMQ, V1–V4";
        if (!brokerAnswers()) return ScenarioResult.skipped(name(), title, "no broker answers on " + BROKER_HOST + ":" + BROKER_PORT);
        return ScenarioResult.skipped(name(), title, "not built: this build has no RabbitMQ publishing module (keel-amqp)");
    }

    /** True when something accepts a TCP connection on the broker's port within a second. */
    static boolean brokerAnswers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(BROKER_HOST, BROKER_PORT), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
