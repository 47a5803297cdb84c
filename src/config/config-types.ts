/** What a config file holds once read and checked (src/config/config-file.ts). */
export type ConfigScalar = string | number | boolean;
export type ConfigValue = ConfigScalar | ConfigValue[] | { [key: string]: ConfigValue };
export type ConfigOptions = Record<string, ConfigValue>;

/** A target with its password in hand: `url` holds it, so it is never printed (use `label`). */
export interface ConfigTarget {
  label?: string | undefined;
  url?: string | undefined;
  dataDir?: string | undefined;
  nodeExporter?: string | undefined;
  device?: string | undefined;
}

export interface ConfigFile {
  file: string;
  /** The top-level options, for every command that takes them. */
  options: ConfigOptions;
  /** Each command's own section, by command name. */
  sections: Record<string, ConfigOptions>;
  targets: ConfigTarget[];
}
