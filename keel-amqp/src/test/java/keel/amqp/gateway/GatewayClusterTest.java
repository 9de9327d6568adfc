package keel.amqp.gateway;

import com.rabbitmq.client.Connection;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.amqp.Cluster;
import keel.amqp.Services;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway on the three-node cluster of {@code bin/keel services cluster up}, publishing to a
 * quorum queue from 16 clients at once while one node's beam is killed (SIGKILL): either the node
 * the gateway is connected to, or the node that leads the queue (not the gateway's). Every answer is
 * 202, 503 or 504; every 202 is in the queue afterwards; the gateway keeps confirming on the
 * surviving nodes without a restart.
 */
class GatewayClusterTest {
    private static final int CLIENTS = 16;
    private static final int CONFIRMED_BEFORE_KILL = 300;
    private static final int CONFIRMED_AFTER_KILL = 300;
    private static final int MAX_MESSAGES = 30_000;

    enum Victim { GATEWAYS_NODE, QUEUE_LEADER }

    @BeforeAll
    static void clusterUp() throws Exception {
        Cluster.up();
    }

    @ParameterizedTest
    @CsvSource({"ASYNC, GATEWAYS_NODE", "ASYNC, QUEUE_LEADER", "VIRTUAL_THREAD, GATEWAYS_NODE", "VIRTUAL_THREAD, QUEUE_LEADER"})
    void aNodeKilledWhilePublishingLosesNoConfirmedMessage(GatewayMode mode, Victim victim) throws Exception {
        try (GatewayServer server = GatewayServer.start(Cluster.options().mode(mode).build()).awaitBroker()) {
            int gatewayNode = Cluster.nodeOf(server.gateway.broker().node().orElseThrow());
            int leader = gatewayNode % Cluster.NODES + 1;
            String queue = Cluster.newQuorumQueue(leader, "cluster-gateway");
            assertThat(Cluster.leader(queue, leader)).as("the queue's leader").isEqualTo(leader);
            int killed = victim == Victim.GATEWAYS_NODE ? gatewayNode : leader;
            int survivor = killed % Cluster.NODES + 1;
            try {
                Load load = new Load(server, queue);
                load.start();
                load.awaitConfirmed(CONFIRMED_BEFORE_KILL, Duration.ofSeconds(60));
                Cluster.kill(killed);
                int confirmedAtKill = load.confirmed.size();
                load.awaitConfirmed(confirmedAtKill + CONFIRMED_AFTER_KILL, Duration.ofSeconds(60));
                load.stop();

                Map<Integer, Integer> statuses = new TreeMap<>();
                load.statuses.values().forEach(status -> statuses.merge(status, 1, Integer::sum));
                System.out.printf("%s, %s killed: %s (status: count)%n", mode, victim, statuses);
                assertThat(statuses.keySet()).as("answers: " + load.examples).isSubsetOf(202, 503, 504);
                assertThat(server.gateway.broker().state()).isEqualTo(BrokerConnection.State.UP);
                if (victim == Victim.GATEWAYS_NODE) {
                    assertThat(Cluster.nodeOf(server.gateway.broker().node().orElseThrow())).as("moved to a surviving node").isNotEqualTo(killed);
                }
                try (Connection check = Cluster.connect(survivor)) {
                    List<String> queued = Services.drain(check, queue);
                    assertThat(queued).as("every confirmed message is queued").containsAll(load.confirmed);
                    assertThat(load.statuses.keySet()).as("only what was sent is queued").containsAll(queued);
                    Services.deleteQueue(check, queue);
                }
            } finally {
                Cluster.up(); // the killed node starts again and rejoins
            }
        }
    }

    /**
     * A connection whose node dies tries the other nodes at once, not after {@code amqp.recovery-interval}:
     * with an interval of a minute, the gateway is up on a surviving node within seconds.
     */
    @Test
    void aConnectionWhoseNodeDiesMovesToAnotherAtOnce() throws Exception {
        AmqpOptions options = Cluster.options().mode(GatewayMode.ASYNC).recoveryInterval(Duration.ofMinutes(1)).build();
        try (GatewayServer server = GatewayServer.start(options).awaitBroker()) {
            BrokerConnection broker = server.gateway.broker();
            int killed = Cluster.nodeOf(broker.node().orElseThrow());
            int survivor = killed % Cluster.NODES + 1;
            String queue = Cluster.newQuorumQueue(survivor, "cluster-move");
            try {
                Cluster.kill(killed);
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (broker.state() != BrokerConnection.State.UP || broker.node().map(Cluster::nodeOf).orElse(killed) == killed) {
                    assertThat(System.nanoTime()).as("up on a surviving node within 20 s: " + broker.json()).isLessThan(deadline);
                    Thread.sleep(20);
                }
                assertThat(server.publish("after-the-kill", queue).statusCode()).isEqualTo(202);
                try (Connection check = Cluster.connect(survivor)) {
                    assertThat(Services.drain(check, queue)).containsExactly("after-the-kill");
                    Services.deleteQueue(check, queue);
                }
            } finally {
                Cluster.up(); // the killed node starts again and rejoins
            }
        }
    }

    /** CLIENTS loops publishing "m-<i>" one at a time each; a refused client waits 10 ms, as Retry-After asks it to wait. */
    private static final class Load {
        final GatewayServer server;
        final String queue;
        final Map<String, Integer> statuses = new ConcurrentHashMap<>();
        final Set<String> confirmed = ConcurrentHashMap.newKeySet();
        final Map<Integer, String> examples = new ConcurrentHashMap<>();
        final AtomicInteger next = new AtomicInteger();
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Thread> clients = new ArrayList<>();

        Load(GatewayServer server, String queue) {
            this.server = server;
            this.queue = queue;
        }

        void start() {
            for (int i = 0; i < CLIENTS; i++) clients.add(Thread.ofVirtual().name("cluster-client-" + i).start(this::publishUntilStopped));
        }

        private void publishUntilStopped() {
            for (int i; running.get() && (i = next.getAndIncrement()) < MAX_MESSAGES; ) {
                String body = "m-" + i;
                HttpResponse<String> response = server.publish(body, queue);
                statuses.put(body, response.statusCode());
                if (response.statusCode() == 202) {
                    confirmed.add(body);
                    continue;
                }
                examples.putIfAbsent(response.statusCode(), response.body().strip());
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void awaitConfirmed(int count, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (confirmed.size() < count) {
                if (System.nanoTime() > deadline || next.get() >= MAX_MESSAGES + CLIENTS) {
                    stop();
                    throw new AssertionError(confirmed.size() + " confirmed of " + count + " expected; answers: " + examples + "; broker "
                            + server.gateway.broker().json());
                }
                Thread.sleep(20);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread client : clients) client.join();
        }
    }
}
