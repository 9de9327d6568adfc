package keel.core.loop;

import org.junit.jupiter.api.Test;

import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskQueueTest {
    @Test
    void refusesTasksPastTheQueueBound() {
        TaskQueue queue = new TaskQueue(3);
        for (int i = 0; i < 3; i++) queue.offer(() -> { });
        assertThatThrownBy(() -> queue.offer(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("full");
        assertThat(queue.size()).isEqualTo(3);
        queue.poll();
        queue.offer(() -> { });
        assertThat(queue.size()).isEqualTo(3);
    }
}
