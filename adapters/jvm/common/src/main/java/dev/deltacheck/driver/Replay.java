package dev.deltacheck.driver;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A loopback HTTP server that answers every request with the current fixture's SSE text as a
 * `text/event-stream` body, so a library's own HTTP client and SSE parser consume the bytes. The
 * body is written in slices flushed one by one (chunked transfer): where a byte-level fixture cuts
 * it (`sse_cuts`, which may fall inside a multi-byte character), else in `PIECES` slices of equal
 * size, so the slices may cut lines, events and multi-byte characters, as a network does.
 */
public final class Replay implements AutoCloseable {
    public static final String API_KEY = "sk-deltacheck-dummy";
    private static final int PIECES = 4;

    private final HttpServer server;
    private volatile byte[] body = new byte[0];
    private volatile int[] edges = {0, 0};  // slice boundaries of body, from 0 to its length
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
            byte[] bytes;
            int[] slices;
            synchronized (replay) {
                bytes = replay.body;
                slices = replay.edges;
            }
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 1; i < slices.length; i++) {
                    out.write(bytes, slices[i - 1], slices[i] - slices[i - 1]);
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

    /** The next requests are answered with this run request's SSE text, cut where the fixture cuts it. */
    public void serve(Map<String, Object> request) {
        Object cuts = request.get("sse_cuts");
        serve((String) request.get("sse"), cuts instanceof List ? (List<?>) cuts : List.of());
    }

    /** The next requests are answered with this SSE text, cut at these byte offsets (none: equal slices). */
    public synchronized void serve(String sse, List<?> cuts) {
        byte[] bytes = sse.getBytes(StandardCharsets.UTF_8);
        List<Integer> at = new ArrayList<>(List.of(0));
        if (!cuts.isEmpty()) {
            for (Object cut : cuts) at.add(((Number) cut).intValue());
        } else {
            int size = Math.max(1, (bytes.length + PIECES - 1) / PIECES);
            for (int offset = size; offset < bytes.length; offset += size) at.add(offset);
        }
        at.add(bytes.length);
        body = bytes;
        edges = at.stream().mapToInt(Integer::intValue).toArray();
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
