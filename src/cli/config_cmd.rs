//! `cmem config`: what cmem is actually using, and where it came from.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::config;

#[derive(Args)]
pub(crate) struct ConfigArgs {
    /// Print the defaults as a commented config file (a starting point for your own)
    #[arg(long, conflicts_with = "path")]
    defaults: bool,
    /// Print only the config file path
    #[arg(long)]
    path: bool,
}

pub(crate) fn run(args: &ConfigArgs, face: &super::face::Face) -> Result<ExitCode> {
    if args.defaults {
        print!("{}", config::defaults_toml());
        return Ok(ExitCode::SUCCESS);
    }
    if args.path {
        println!("{}", crate::paths::config_file().0.display());
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = face.loaded()?;
    println!(
        "# config file: {} ({})",
        loaded.file.display(),
        if loaded.file_exists {
            "loaded"
        } else {
            "absent: defaults"
        }
    );
    println!("# data dir:    {}", loaded.settings.data_dir().display());
    let overridden: Vec<_> = config::ENV_KEYS
        .iter()
        .filter(|k| std::env::var_os(k.env).is_some())
        .map(|k| format!("{}={}", k.env, k.key))
        .collect();
    if !overridden.is_empty() {
        println!("# from the environment: {}", overridden.join(", "));
    }
    let mode = crate::model::mode::resolve(&loaded.settings.context.mode);
    match &mode {
        Ok(m) => println!(
            "# mode:        {} ({}): {} types, {} concepts; {}",
            m.name,
            m.id,
            m.types.len(),
            m.concepts.len(),
            m.source
        ),
        Err(e) => println!("# mode:        cannot load: {e:#}"),
    }
    println!();
    print!("{}", toml::to_string_pretty(&loaded.settings)?);
    Ok(if mode.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
