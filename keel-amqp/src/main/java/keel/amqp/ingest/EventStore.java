package keel.amqp.ingest;

import keel.amqp.AmqpOptions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The {@code device_events} table. An insert of one or many events is one statement, so one
 * transaction: committed when it returns. An event already stored (a redelivery) is skipped by
 * {@code ON CONFLICT DO NOTHING} on its unique id, so storing twice stores once.
 */
final class EventStore {
    static final String TABLE = "device_events";
    private static final String CREATE = "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + "event_id text PRIMARY KEY, body bytea NOT NULL, stored_at timestamptz NOT NULL DEFAULT clock_timestamp())";

    private final AmqpOptions.Database options;

    EventStore(AmqpOptions.Database options) {
        this.options = options;
    }

    /** A new connection in auto-commit mode; the caller owns it. */
    Connection open() throws SQLException {
        Connection connection = DriverManager.getConnection(options.url(), options.user(), options.password());
        connection.setAutoCommit(true);
        return connection;
    }

    void createTable() throws SQLException {
        try (Connection connection = open(); Statement statement = connection.createStatement()) {
            statement.execute(CREATE);
        }
    }

    /** Stores {@code events} in one committed statement; returns how many were new. */
    int insert(Connection connection, List<Event> events) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(TABLE).append(" (event_id, body) VALUES ");
        for (int i = 0; i < events.size(); i++) sql.append(i == 0 ? "(?, ?)" : ", (?, ?)");
        sql.append(" ON CONFLICT (event_id) DO NOTHING");
        try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
            int parameter = 1;
            for (Event event : events) {
                insert.setString(parameter++, event.id());
                insert.setBytes(parameter++, event.body());
            }
            return insert.executeUpdate();
        }
    }
}
