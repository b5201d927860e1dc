package main

// topic is one subject of the generated notes: the words its sentences are
// made of. Templates are shared by all topics, so what tells topics apart
// is their vocabulary, as in real notes.
type topic struct {
	name  string
	nouns []string
	verbs []string // base form
	adjs  []string
}

var topics = []topic{
	{"gardening", []string{"tomato seedlings", "compost heap", "raised bed", "rose bushes", "garden soil", "mulch", "watering can", "vegetable patch", "fruit trees", "pruning shears", "greenhouse", "weeds"},
		[]string{"plant", "water", "prune", "fertilize", "harvest", "weed"}, []string{"sunny", "leafy", "organic", "damp", "overgrown"}},
	{"baking", []string{"sourdough starter", "bread dough", "oven", "croissants", "flour", "pie crust", "butter", "yeast", "cake batter", "baking tray", "cinnamon rolls", "muffins"},
		[]string{"knead", "bake", "proof", "whisk", "fold", "glaze"}, []string{"golden", "flaky", "crusty", "sweet", "fluffy"}},
	{"kubernetes", []string{"pods", "deployment manifest", "cluster nodes", "ingress controller", "helm chart", "container image", "namespace", "service mesh", "autoscaler", "kubelet", "persistent volume", "control plane"},
		[]string{"deploy", "scale", "roll back", "schedule", "restart", "drain"}, []string{"unhealthy", "replicated", "stateless", "pending", "misconfigured"}},
	{"databases", []string{"query planner", "index", "primary key", "transaction log", "table schema", "foreign key", "replica", "SQL query", "join", "vacuum job", "connection pool", "migration"},
		[]string{"optimize", "normalize", "replicate", "index", "back up", "migrate"}, []string{"slow", "relational", "locked", "consistent", "denormalized"}},
	{"astronomy", []string{"telescope", "galaxy", "nebula", "planet", "star cluster", "comet", "lunar eclipse", "night sky", "orbit", "black hole", "meteor shower", "observatory"},
		[]string{"observe", "photograph", "track", "orbit", "discover", "map"}, []string{"distant", "faint", "bright", "celestial", "spiral"}},
	{"football", []string{"striker", "goalkeeper", "penalty kick", "midfield", "league table", "match", "referee", "corner kick", "stadium", "transfer window", "defender", "coach"},
		[]string{"score", "tackle", "pass", "defend", "substitute", "celebrate"}, []string{"offside", "decisive", "home", "injured", "relegated"}},
	{"personal finance", []string{"savings account", "budget", "credit card", "mortgage", "retirement fund", "interest rate", "tax return", "index fund", "emergency fund", "monthly expenses", "loan", "pension"},
		[]string{"save", "invest", "repay", "budget", "refinance", "deduct"}, []string{"fixed", "compound", "annual", "tax-free", "overdue"}},
	{"travel", []string{"flight", "hotel booking", "passport", "train station", "itinerary", "suitcase", "travel insurance", "airport lounge", "city tour", "visa", "beach resort", "hostel"},
		[]string{"book", "pack", "explore", "cancel", "visit", "check in"}, []string{"delayed", "scenic", "budget", "overnight", "crowded"}},
	{"music", []string{"guitar", "piano", "chord progression", "melody", "drum kit", "concert", "album", "rehearsal", "sheet music", "choir", "bass line", "recording studio"},
		[]string{"play", "compose", "rehearse", "record", "tune", "perform"}, []string{"acoustic", "melodic", "loud", "rhythmic", "out of tune"}},
	{"medicine", []string{"blood pressure", "prescription", "patient", "vaccine", "symptoms", "clinic", "antibiotics", "diagnosis", "surgery", "nurse", "heart rate", "dosage"},
		[]string{"diagnose", "treat", "prescribe", "monitor", "vaccinate", "examine"}, []string{"chronic", "acute", "clinical", "mild", "infectious"}},
	{"cycling", []string{"road bike", "chain", "saddle", "gear shifter", "bike lane", "helmet", "tyre pressure", "mountain trail", "brake pads", "pedals", "cycling jersey", "handlebars"},
		[]string{"ride", "pump", "climb", "oil", "repair", "sprint"}, []string{"uphill", "punctured", "lightweight", "muddy", "carbon"}},
	{"machine learning", []string{"neural network", "training set", "loss function", "gradient descent", "model weights", "validation accuracy", "learning rate", "classifier", "feature vector", "overfitting", "embedding layer", "GPU"},
		[]string{"train", "evaluate", "tune", "regularize", "predict", "fine-tune"}, []string{"supervised", "noisy", "convolutional", "biased", "accurate"}},
	{"home repair", []string{"leaking faucet", "drywall", "power drill", "roof tiles", "paint roller", "plumbing", "electrical outlet", "window frame", "floorboards", "toolbox", "ceiling fan", "water heater"},
		[]string{"fix", "sand", "paint", "replace", "install", "seal"}, []string{"cracked", "rusty", "loose", "waterproof", "squeaky"}},
	{"pets", []string{"puppy", "cat litter", "dog leash", "veterinarian", "kitten", "pet food", "aquarium", "hamster cage", "dog walk", "flea treatment", "parrot", "chew toys"},
		[]string{"feed", "groom", "walk", "adopt", "train", "cuddle"}, []string{"playful", "shy", "furry", "hungry", "well-behaved"}},
	{"history", []string{"roman empire", "medieval castle", "ancient manuscript", "revolution", "archaeologists", "treaty", "dynasty", "battlefield", "museum archive", "pharaoh", "civil war", "monarchy"},
		[]string{"conquer", "excavate", "sign", "overthrow", "chronicle", "restore"}, []string{"ancient", "feudal", "imperial", "forgotten", "colonial"}},
	{"coffee", []string{"espresso machine", "coffee beans", "grinder", "latte", "french press", "milk frother", "roast", "barista", "cold brew", "filter paper", "cappuccino", "tamper"},
		[]string{"brew", "grind", "roast", "froth", "taste", "descale"}, []string{"bitter", "dark", "aromatic", "single-origin", "creamy"}},
}

// templates take, in order: noun, verb, adjective, noun, adjective.
var templates = []string{
	"Remember to %[2]s the %[1]s before the weekend, the %[4]s looks %[3]s.",
	"We decided to %[2]s the %[3]s %[1]s first and leave the %[4]s for later.",
	"The %[1]s was %[3]s again, so I had to %[2]s it twice.",
	"Note to self: the %[5]s %[4]s works better than the %[1]s.",
	"Yesterday I tried to %[2]s the %[1]s and it turned out %[3]s.",
	"My plan is to %[2]s the %[4]s every morning and check the %[1]s.",
	"It took an hour to %[2]s the %[1]s because the %[4]s was %[5]s.",
	"Everyone agreed the %[1]s needs to be %[3]s before we %[2]s the %[4]s.",
	"I read that a %[3]s %[1]s helps when you %[2]s the %[4]s.",
	"Next time, %[2]s the %[4]s slowly and keep an eye on the %[1]s.",
	"The problem with the %[1]s is that the %[4]s gets %[5]s.",
	"Asked around about how to %[2]s a %[5]s %[1]s; most people said to start with the %[4]s.",
}

// fillers are sentences about nothing in particular, for noise notes.
var fillers = []string{
	"Random thought while waiting in line today.",
	"Not sure where this belongs, writing it down anyway.",
	"Call back about the thing on Tuesday.",
	"Lorem ipsum placeholder, replace later.",
	"The weather was strange all afternoon.",
	"Meeting moved again, no reason given.",
	"Need to find that link someone sent me.",
	"Remember the number seventeen for later.",
	"Misc: blue folder, second drawer, ask Sam.",
	"Felt tired after lunch, skipped the walk.",
	"Things to look into eventually, no rush.",
	"Password hint is not here, check elsewhere.",
}
