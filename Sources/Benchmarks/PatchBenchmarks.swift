import Bulkhead
import BulkheadDistribution
import CoreBenchmarks
import Transport

/// Patches of one change in a large list or deep in a nested struct, against sending the
/// changed field whole: the bytes, and the time to make and apply the patch against the time
/// to encode and decode the field.
func patchBenchmarks() throws -> [Row] {
  struct Item: Codable, Equatable, Identifiable {
    var id: Int
    var title: String
    var stock = 0
  }
  struct Address: Codable, Equatable { var city = "Paris"; var lines = ["1 rue", "2e étage"] }
  struct Profile: Codable, Equatable { var name = "Blob"; var address = Address() }
  // No default values: a decoder would build them before overwriting them.
  struct Catalog: Codable, Equatable {
    var numbers: [Int]
    var items: IdentifiedArrayOf<Item>
    var profile: Profile
  }
  let old = Catalog(
    numbers: Array(0..<100_000), items: IdentifiedArray((0..<100_000).map { Item(id: $0, title: "item \($0)") }),
    profile: Profile())
  /// One change, and the field it changes sent whole: encoded, then decoded.
  struct Change {
    let name: String
    let apply: (inout Catalog) -> Void
    let sendFieldWhole: (Catalog) throws -> Int
  }
  func whole<Field: Codable>(_ field: KeyPath<Catalog, Field>) -> (Catalog) throws -> Int {
    { catalog in
      let bytes = try BinaryEncoder().encode(catalog[keyPath: field])
      blackHole(try BinaryDecoder().decode(Field.self, from: bytes))
      return bytes.count
    }
  }
  let changes = [
    Change(name: "append to an Array of 100,000 Int", apply: { $0.numbers.append(-1) }, sendFieldWhole: whole(\.numbers)),
    Change(name: "remove from the middle of an Array of 100,000 Int", apply: { $0.numbers.remove(at: 50_000) }, sendFieldWhole: whole(\.numbers)),
    Change(name: "change one of an IdentifiedArray of 100,000 items", apply: { $0.items[id: 50_000]?.stock = 7 }, sendFieldWhole: whole(\.items)),
    Change(name: "remove one of an IdentifiedArray of 100,000 items", apply: { $0.items.remove(id: 50_000) }, sendFieldWhole: whole(\.items)),
    Change(name: "change a leaf three structs deep", apply: { $0.profile.address.city = "Lyon" }, sendFieldWhole: whole(\.profile)),
  ]
  var rows: [Row] = []
  for change in changes {
    var new = old
    change.apply(&new)
    guard let patch = try StatePatch(from: old, to: new) else { continue }
    let wholeBytes = try change.sendFieldWhole(new)
    // The goal: at most 64 bytes besides the element (or leaf) that changed.
    let changed = Double(patch.byteCount)
    rows.append(
      Row(
        name: "\(change.name): patch size", value: Double(patch.wireByteCount), unit: "B",
        baseline: Double(wholeBytes), goal: .value(64 + changed)))
    let patched = nanosecondsPerCall(iterations: 5, rounds: 3) {
      blackHole(try? StatePatch(from: old, to: new)?.applied(to: old))
    }
    let sentWhole = nanosecondsPerCall(iterations: 5, rounds: 3) { blackHole(try? change.sendFieldWhole(new)) }
    rows.append(Row(name: "\(change.name): make + apply the patch", value: patched / 1000, unit: "µs", baseline: sentWhole / 1000))
  }
  return rows
}
