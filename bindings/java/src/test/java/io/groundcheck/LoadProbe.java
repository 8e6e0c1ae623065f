package io.groundcheck;

/** A JVM of its own for {@link LoadingTest}: says where the library came from, or why not. */
public final class LoadProbe {
    private LoadProbe() {}

    /** Prints {@code ok FROM}, or the failure's kind and message. */
    public static void main(String[] args) {
        try {
            Policy.defaults();
            System.out.println("ok " + Native.loadedFrom());
        } catch (GroundcheckException e) {
            System.out.println(e.kind() + " " + e.getMessage());
        }
    }
}
