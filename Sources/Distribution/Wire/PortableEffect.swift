import Bulkhead

/// The shape of a child's effect as a worker describes it to the host: the same tree of
/// `send`, `merge`, `concatenate`, `cancellable` and `cancel`, with every `run` body replaced
/// by a number the worker keeps it under. The host rebuilds the tree around proxies for those
/// bodies, so ordering, cancellation and test-store bookkeeping all happen in the host, exactly
/// as in one process.
indirect enum PortableEffect: Equatable, Sendable {
  case none
  case send([UInt8])
  case run(UInt64)
  case merge([PortableEffect])
  case concatenate([PortableEffect])
  case cancellable(PortableCancelKey, cancelInFlight: Bool, PortableEffect)
  case cancel(PortableCancelKey)
}

/// A cancel key as text: the id's type and value, and the worker-side navigation path.
struct PortableCancelKey: Hashable, Sendable {
  var id: String?
  var path: [String]
}

extension CancelKey {
  var portable: PortableCancelKey {
    PortableCancelKey(
      id: id.map { ForeignHashable(describing: $0).description },
      path: path.elements.map { ForeignHashable(describing: $0).description })
  }

  /// The host's key for a worker's key, under the host's navigation path at the boundary.
  init(_ portable: PortableCancelKey, under prefix: NavigationPath) {
    var path = prefix
    for element in portable.path {
      path = path.appending(ForeignHashable(description: element))
    }
    self.init(id: portable.id.map { AnyHashableSendable(ForeignHashable(description: $0)) }, path: path)
  }
}

extension Effect {
  /// The portable shape of this effect; `keep` stores each `run` body and returns its number.
  func portable(
    encode: (Action) throws -> [UInt8],
    keep: (@escaping @Sendable (Send<Action>) async -> Void) -> UInt64
  ) throws -> PortableEffect {
    switch operation {
    case .none: return .none
    case let .send(action): return .send(try encode(action))
    case let .run(_, body): return .run(keep(body))
    case let .merge(effects):
      return .merge(try effects.map { try $0.portable(encode: encode, keep: keep) })
    case let .concatenate(effects):
      return .concatenate(try effects.map { try $0.portable(encode: encode, keep: keep) })
    case let .cancellable(key, cancelInFlight, effect):
      return .cancellable(
        key.portable, cancelInFlight: cancelInFlight,
        try effect.portable(encode: encode, keep: keep))
    case let .cancel(key): return .cancel(key.portable)
    }
  }

  /// The effect a portable shape stands for in the host: `decode` reads sent actions, `proxy`
  /// stands in for the worker's run bodies. Plain `throws`, not `rethrows`: the nested builder
  /// throws on its own account, and a `rethrows` that lets it escape when `decode` cannot
  /// throw is undefined behaviour (it crashed the host on a worker's undecodable action).
  init(
    _ portable: PortableEffect, decode: ([UInt8]) throws -> Action,
    proxy: (UInt64) -> Effect<Action>
  ) throws {
    let prefix = NavigationPath.current
    func rebuild(_ portable: PortableEffect) throws -> Effect<Action> {
      switch portable {
      case .none: return .none
      case let .send(bytes): return .send(try decode(bytes))
      case let .run(number): return proxy(number)
      case let .merge(effects): return Effect(.merge(try effects.map(rebuild)))
      case let .concatenate(effects): return Effect(.concatenate(try effects.map(rebuild)))
      case let .cancellable(key, cancelInFlight, effect):
        return Effect(
          .cancellable(
            CancelKey(key, under: prefix), cancelInFlight: cancelInFlight, try rebuild(effect)))
      case let .cancel(key): return Effect(.cancel(CancelKey(key, under: prefix)))
      }
    }
    self = try rebuild(portable)
  }
}
