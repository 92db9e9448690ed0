import BulkheadDistribution

/// What the trace keeps of each thing it hears, on the thread where it happened: the facts as
/// they came, in the order they came, turned into events later on the trace's own thread.
enum TraceRecord: Sendable {
  case remoteAction(RemoteActionTrip)
  case effectAction(EffectActionTrip)
  case event(BoundaryEvent, at: MonotonicInstant)
}
