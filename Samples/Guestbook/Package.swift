// swift-tools-version: 6.0
import PackageDescription

// An app of its own that uses Bulkhead as any outside package would: by path, through the
// products `Bulkhead`, `BulkheadTools` and `BulkheadTesting` only.
let package = Package(
  name: "Guestbook",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "guestbook", targets: ["guestbook"])
  ],
  dependencies: [
    .package(name: "Bulkhead", path: "../..")
  ],
  targets: [
    // The feature: a guestbook and the composer sheet where a visitor signs it.
    .target(name: "GuestbookFeature", dependencies: [.product(name: "Bulkhead", package: "Bulkhead")]),
    // One binary: the host, and, started again by the host, the composer's worker. Its `main`
    // and its list of apps are the tools' command line; the feature does not know them.
    .executableTarget(
      name: "guestbook",
      dependencies: [
        "GuestbookFeature", .product(name: "Bulkhead", package: "Bulkhead"),
        .product(name: "BulkheadTools", package: "Bulkhead"),
      ]),
    // Exhaustive `TestStore` tests, in one process and with the composer in a worker; they
    // start the `guestbook` executable built beside them.
    .testTarget(
      name: "GuestbookTests",
      dependencies: [
        "GuestbookFeature", "guestbook",
        .product(name: "Bulkhead", package: "Bulkhead"),
        .product(name: "BulkheadTesting", package: "Bulkhead"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
