// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "formsctl",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "formsctl", targets: ["formsctl"]),
    .library(name: "FormsCore", targets: ["FormsCore"]),
    .library(name: "FormsYAML", targets: ["FormsYAML"]),
    .library(name: "FormsStore", targets: ["FormsStore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CLibYAML",
      pkgConfig: "yaml-0.1",
      providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
    ),
    .target(name: "FormsCore"),
    .target(name: "FormsYAML", dependencies: ["FormsCore", "CLibYAML"]),
    .target(
      name: "FormsStore",
      dependencies: ["FormsCore", "FormsYAML", .product(name: "Crypto", package: "swift-crypto")]
    ),
    .executableTarget(
      name: "formsctl",
      dependencies: ["FormsStore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(name: "FormsBench", dependencies: ["FormsStore"], path: "Benchmarks/FormsBench"),
    // What every test layer shares: temporary directories, a seeded generator, descriptor
    // fixtures, position markers, golden files.
    .target(
      name: "FormsTestSupport", dependencies: ["FormsCore", "FormsYAML", "FormsStore"], path: "Tests/FormsTestSupport"),
    .testTarget(name: "FormsCoreTests", dependencies: ["FormsCore", "FormsTestSupport"]),
    .testTarget(name: "FormsYAMLTests", dependencies: ["FormsYAML", "FormsTestSupport"]),
    .testTarget(name: "FormsStoreTests", dependencies: ["FormsStore", "FormsTestSupport"]),
    .testTarget(
      name: "formsctlTests", dependencies: ["formsctl", "FormsStore", "FormsCore", "FormsTestSupport"],
      exclude: ["Snapshots"]),
  ]
)
