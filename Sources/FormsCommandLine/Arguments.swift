import ArgumentParser
import FormsCore

/// `--max-prune` and `--max-delete`: N, or P% of a kind.
extension PruneBound: ExpressibleByArgument {
  public init?(argument: String) { self.init(argument) }
}
