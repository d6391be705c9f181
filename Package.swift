// swift-tools-version:6.1
import PackageDescription

/// Every Swift target: a member is visible only where its module is imported (SE-0444).
let settings: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
  name: "formsctl",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "formsctl", targets: ["formsctl"]),
    // `formsctl sync` runs this program from beside formsctl (as git runs git-NAME), so that
    // formsctl itself never compiles or links the PostgreSQL client.
    .executable(name: "formsctl-sync", targets: ["formsctl-sync"]),
    // `formsctl serve` runs this program from beside formsctl, as sync runs formsctl-sync: only it
    // links the HTTP server.
    .executable(name: "formsctl-serve", targets: ["formsctl-serve"]),
    // `formsctl mcp` runs this one the same way: formsctl never links the MCP SDK.
    .executable(name: "formsctl-mcp", targets: ["formsctl-mcp"]),
    .library(name: "FormsCore", targets: ["FormsCore"]),
    .library(name: "FormsYAML", targets: ["FormsYAML"]),
    .library(name: "FormsStore", targets: ["FormsStore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    // Only the sync target links it (formsctl sync); the libraries do not.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.5.3"),
    // Only the web application links it (formsctl serve).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    // What the web application names of Hummingbird's own dependencies (already resolved by it).
    .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // Only the assistant door links it (formsctl mcp).
    .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
  ],
  targets: [
    .systemLibrary(
      name: "CLibYAML",
      pkgConfig: "yaml-0.1",
      providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
    ),
    .target(name: "FormsCore", swiftSettings: settings),
    .target(name: "FormsYAML", dependencies: ["FormsCore", "CLibYAML"], swiftSettings: settings),
    .target(
      name: "FormsStore",
      dependencies: ["FormsCore", "FormsYAML", .product(name: "Crypto", package: "swift-crypto")],
      swiftSettings: settings
    ),
    // The language server editors start (formsctl lsp): a door of its own, over the store library.
    .target(name: "FormsLanguageServer", dependencies: ["FormsCore", "FormsStore"], swiftSettings: settings),
    // Two-way sync with a PostgreSQL database (formsctl sync): its own target, so that the
    // libraries and the apps that do not sync never link the PostgreSQL client.
    .target(
      name: "FormsSync",
      dependencies: [
        "FormsCore", "FormsStore", .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings
    ),
    // The store's pages as HTML (escaped by construction), the forms generated from descriptors
    // and what a submitted form means: no HTTP, so `formsctl render` links it without a server.
    .target(name: "FormsPages", dependencies: ["FormsCore", "FormsStore"], swiftSettings: settings),
    // The web application (formsctl serve): its own target, so that nothing else links the server.
    .target(
      name: "FormsServer",
      dependencies: [
        "FormsCore", "FormsStore", "FormsPages", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings
    ),
    // The Model Context Protocol server assistants start (formsctl mcp): its tools, resources
    // and notifications, over the store library's public API.
    .target(
      name: "FormsAssistant",
      dependencies: [
        "FormsCore", "FormsStore", .product(name: "MCP", package: "swift-sdk"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings
    ),
    // What every formsctl program shares: store options, output, error words, exit codes, the
    // main loop (package access only; not a product).
    .target(
      name: "FormsCommandLine",
      dependencies: ["FormsCore", "FormsStore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      swiftSettings: settings
    ),
    .executableTarget(
      name: "formsctl",
      dependencies: [
        "FormsCore", "FormsStore", "FormsCommandLine", "FormsLanguageServer", "FormsPages",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: settings
    ),
    .executableTarget(
      name: "formsctl-sync",
      dependencies: [
        "FormsCore", "FormsStore", "FormsSync", "FormsCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: settings
    ),
    .executableTarget(
      name: "formsctl-serve",
      dependencies: [
        "FormsCore", "FormsStore", "FormsServer", "FormsCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: settings
    ),
    .executableTarget(
      name: "formsctl-mcp",
      dependencies: [
        "FormsCore", "FormsStore", "FormsAssistant", "FormsCommandLine",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "MCP", package: "swift-sdk"),
      ],
      swiftSettings: settings
    ),
    .executableTarget(
      name: "FormsBench",
      dependencies: ["FormsCore", "FormsStore", "FormsLanguageServer", "FormsServer", "FormsTestSupport"],
      path: "Benchmarks/FormsBench",
      swiftSettings: settings),
    .executableTarget(
      name: "SyncBench", dependencies: ["FormsCore", "FormsStore", "FormsSync", "FormsTestSupport"],
      path: "Benchmarks/SyncBench",
      swiftSettings: settings),
    // What every test layer shares: temporary directories, a seeded generator, descriptor
    // fixtures, position markers, golden files.
    .target(
      name: "FormsTestSupport", dependencies: ["FormsCore", "FormsYAML", "FormsStore"], path: "Tests/FormsTestSupport",
      swiftSettings: settings),
    .testTarget(name: "FormsCoreTests", dependencies: ["FormsCore", "FormsTestSupport"], swiftSettings: settings),
    .testTarget(
      name: "FormsYAMLTests", dependencies: ["FormsCore", "FormsYAML", "FormsTestSupport"], swiftSettings: settings),
    .testTarget(
      name: "FormsStoreTests", dependencies: ["FormsCore", "FormsYAML", "FormsStore", "FormsTestSupport"],
      swiftSettings: settings),
    .testTarget(
      name: "FormsSyncTests", dependencies: ["FormsCore", "FormsStore", "FormsSync", "FormsTestSupport"],
      swiftSettings: settings),
    .testTarget(
      name: "FormsServerTests",
      dependencies: [
        "FormsCore", "FormsStore", "FormsPages", "FormsServer", "FormsTestSupport",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ],
      swiftSettings: settings),
    .testTarget(
      name: "FormsAssistantTests",
      dependencies: [
        "FormsAssistant", "FormsCore", "FormsStore", "FormsTestSupport", .product(name: "MCP", package: "swift-sdk"),
      ],
      exclude: ["Resources"], swiftSettings: settings),
    .testTarget(
      name: "formsctlTests",
      dependencies: [
        "formsctl", "formsctl-sync", "formsctl-serve", "formsctl-mcp", "FormsCommandLine", "FormsLanguageServer",
        "FormsStore", "FormsCore", "FormsTestSupport",
      ],
      exclude: ["Snapshots", "Browser"], swiftSettings: settings),
  ]
)
