import BulkheadDistribution
import BulkheadTools
import ExampleApps

// A worker for the built-in example apps: serves one boundary for the `parent-host` that
// started it, which passes the socket path and launch secret on standard input, never in argv.
//
//   child-worker --bulkhead-worker two-counters counter1   (started by parent-host only)

BoundaryWorker.main(apps: ExampleApp.all)
