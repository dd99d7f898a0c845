//! LoLA: the codec of the NAO body interface.
