// libyaml (Debian libyaml-dev): `pushlab relay import-gorush` reads gorush's YAML config with it.
// Swift calls its document API directly; nothing here needs a shim.
#ifndef CPUSHLAB_YAML_H
#define CPUSHLAB_YAML_H

#include <yaml.h>

#endif
