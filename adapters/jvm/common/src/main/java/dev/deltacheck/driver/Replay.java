package dev.deltacheck.driver;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP server that answers every request with the current fixture's SSE text as a
 * `text/event-stream` body, so a library's own HTTP client and SSE parser consume the bytes. The
 * body is written in `PIECES` slices of equal size, flushed one by one (chunked transfer), so the
 * slices may cut lines, events and multi-byte characters, as a network does.
 */
public final class Replay implements AutoCloseable {
    public static final String API_KEY = "sk-deltacheck-dummy";
    private static final int PIECES = 4;

    private final HttpServer server;
    private volatile byte[] body = new byte[0];
    private volatile String lastRequest = "";

    private Replay(HttpServer server) {
        this.server = server;
    }

    public static Replay start() throws IOException {
        // Each slice is flushed on its own; without TCP_NODELAY every slice after the first waits for
        // the client's delayed ACK (about 40 ms per fixture).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        Replay replay = new Replay(server);
        server.createContext("/", exchange -> {
            try (InputStream request = exchange.getRequestBody()) {
                request.readAllBytes();
            }
            replay.lastRequest = exchange.getRequestMethod() + " " + exchange.getRequestURI();
            byte[] bytes = replay.body;
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                int size = Math.max(1, (bytes.length + PIECES - 1) / PIECES);
                for (int offset = 0; offset < bytes.length; offset += size) {
                    out.write(bytes, offset, Math.min(size, bytes.length - offset));
                    out.flush();
                }
            }
        });
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "deltacheck-replay");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        return replay;
    }

    /** The next requests are answered with this SSE text. */
    public void serve(String sse) {
        body = sse.getBytes(StandardCharsets.UTF_8);
    }

    /** http://127.0.0.1:PORT, without a trailing slash. */
    public String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    /** What the library asked for last (method and path), for diagnostics. */
    public String lastRequest() {
        return lastRequest;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
