import BulkheadTools
import ExampleApps

// The host for the built-in example apps: runs one, owns its root state, and starts a
// `child-worker` for every boundary its placement file names.
//
//   parent-host --list
//   parent-host --boundaries two-counters
//   parent-host --app two-counters [--placement placements/two-counters.placement] [--hold]
//
// Everything it does is `HostCommand`, which any app's executable calls the same way.

await HostCommand.main(apps: ExampleApp.all, workerExecutable: "child-worker")
