package dev.deltacheck.driver;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * deltacheck driver protocol v1 (docs/PROTOCOL.md), shared by every JVM driver: one JSON object per
 * line on stdin and stdout. stdout carries protocol lines only: System.out is pointed at stderr
 * before any library class loads, so whatever a library prints goes there.
 */
public final class Driver {
    /** What a driver implements: one fixture request in, one canonical result (CONTRACT.md 3) out. */
    public interface Implementation {
        Map<String, Object> run(Map<String, Object> request) throws Exception;
    }

    /** Thrown by an implementation that cannot run a request at all: the reply is `skipped`. */
    public static final class CannotRun extends RuntimeException {
        public CannotRun(String reason) {
            super(reason);
        }
    }

    /** The hello's implementation description (the same fields as an in-process adapter's describe()). */
    public static final class Description {
        final String name;
        final String library;
        final String version;
        final List<String> protocols;
        final List<String> capabilities;
        final String codePath;
        final Map<String, String> capabilityNotes;

        public Description(String name, String library, String version, List<String> protocols,
                           List<String> capabilities, String codePath, Map<String, String> capabilityNotes) {
            this.name = name;
            this.library = library;
            this.version = version;
            this.protocols = protocols;
            this.capabilities = capabilities;
            this.codePath = codePath;
            this.capabilityNotes = capabilityNotes;
        }
    }

    /** Frames kept for the exception, and for each of its causes, in a traceback (see stableTrace). */
    private static final int TRACE_FRAMES = 8;
    private static final int CAUSE_FRAMES = 2;

    private static final PrintStream PROTOCOL_OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

    static {
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    private Driver() {
    }

    /**
     * Points System.out at stderr. A driver's main calls it before touching its library: a library
     * that keeps the System.out it found at start-up (kotlin-logging does) would write to the protocol
     * channel otherwise. Loading this class does it; the call only makes sure the class is loaded.
     */
    public static void claimStdout() {
    }

    /** The manifest's adapter name (DELTACHECK_ADAPTER_NAME), else the driver's own default. */
    public static String adapterName(String fallback) {
        String given = System.getenv("DELTACHECK_ADAPTER_NAME");
        return given == null || given.isEmpty() ? fallback : given;
    }

    @SuppressWarnings("unchecked")
    public static void serve(Description description, Implementation implementation) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) continue;
            Map<String, Object> message;
            try {
                message = (Map<String, Object>) Json.parse(line);
            } catch (RuntimeException e) {
                System.err.println("driver: ignoring a line that is not a JSON object: "
                        + line.substring(0, Math.min(200, line.length())));
                continue;
            }
            Object cmd = message.get("cmd");
            if ("start".equals(cmd)) {
                if (!Long.valueOf(1).equals(message.get("version"))) {
                    System.err.println("driver: protocol version " + message.get("version") + " is not supported (only 1)");
                    System.exit(2);
                }
                Map<String, Object> hello = new LinkedHashMap<>();
                hello.put("cmd", "start");
                hello.put("version", 1);
                hello.put("implementation", describe(description));
                write(hello);
            } else if ("run".equals(cmd)) {
                write(reply(message.get("seq"), (Map<String, Object>) message.get("request"), description, implementation));
            } else if ("stop".equals(cmd)) {
                System.exit(0);
            } else {
                System.err.println("driver: ignoring unknown command " + cmd);
            }
        }
        System.exit(0);
    }

    private static Map<String, Object> describe(Description d) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", d.name);
        out.put("library", d.library);
        out.put("version", d.version);
        out.put("language", "java");
        out.put("protocols", sorted(d.protocols));
        out.put("capabilities", sorted(d.capabilities));
        out.put("code_path", d.codePath);
        if (d.capabilityNotes != null && !d.capabilityNotes.isEmpty()) out.put("capability_notes", new TreeMap<>(d.capabilityNotes));
        return out;
    }

    private static List<String> sorted(List<String> items) {
        List<String> copy = new ArrayList<>(items);
        Collections.sort(copy);
        return copy;
    }

    private static Map<String, Object> reply(Object seq, Map<String, Object> request, Description description,
                                             Implementation implementation) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("seq", seq);
        String protocol = request == null ? null : (String) request.get("protocol");
        if (request == null || !description.protocols.contains(protocol)) {
            reply.put("skipped", Map.of("reason", description.name + " does not speak " + protocol));
            return reply;
        }
        try {
            Map<String, Object> result = implementation.run(request);
            Json.write(result);  // a value that cannot be written is the implementation's error, not a broken line
            reply.put("result", result);
        } catch (CannotRun e) {
            reply.put("skipped", Map.of("reason", String.valueOf(e.getMessage())));
        } catch (Throwable e) {
            Map<String, Object> errored = new LinkedHashMap<>();
            errored.put("message", oneLine(e));
            errored.put("traceback", stableTrace(e));
            reply.put("errored", errored);
        }
        return reply;
    }

    /**
     * The exception and each cause with the frames nearest to where it was thrown, up to the first
     * frame of coroutine dispatch or a synthetic frame without a line number. What lies below depends
     * on whether a coroutine suspended in that run (a resumed continuation has a short stack, one
     * that ran straight through a long one), and the report must read the same on every run; a
     * cause keeps only its innermost frames, since even its ordinary frames vary that way.
     */
    private static String stableTrace(Throwable e) {
        StringBuilder out = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            out.append(t == e ? "" : "Caused by: ").append(t).append('\n');
            StackTraceElement[] frames = t.getStackTrace();
            int limit = Math.min(frames.length, t == e ? TRACE_FRAMES : CAUSE_FRAMES);
            for (int i = 0; i < limit && (i == 0 || !isDispatch(frames[i])); i++) {
                out.append("\tat ").append(frames[i]).append('\n');
            }
        }
        return out.toString();
    }

    private static boolean isDispatch(StackTraceElement frame) {
        String type = frame.getClassName();
        return type.startsWith("kotlin.coroutines.") || type.startsWith("kotlinx.coroutines.") || frame.getLineNumber() < 0;
    }

    /** `Type: message`, on one line; the innermost cause's type when the outer one only wraps it. */
    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        String text = e.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
        return text.replaceAll("\\s+", " ").trim();
    }

    private static synchronized void write(Map<String, Object> message) {
        PROTOCOL_OUT.print(Json.write(message));
        PROTOCOL_OUT.print('\n');
        PROTOCOL_OUT.flush();
    }
}
